/** The hotspot simulator: replay a workload under candidate key designs (pure, no I/O). */
export { formatDuration, parseDuration } from "./duration.js";
export type { ModelEnd } from "./model-constants.js";
export { formatDesignComparison } from "./report.js";
export { simulationResultToJson } from "./result-json.js";
export type {
  DesignResult,
  DesignSummary,
  LatencySummary,
  ReadSummary,
  SimulationResult,
  TimelinePoint,
} from "./results.js";
export { type SampleRow, type SampleRowsOptions, sampleRows } from "./sample-rows.js";
export {
  findScenarioDesign,
  parseScenario,
  type ReadPattern,
  type Scenario,
  type ScenarioDesign,
  validateScenario,
  type WorkloadGroup,
} from "./scenario.js";
export {
  type DesignSensitivity,
  type SensitivityResult,
  type SensitivitySpan,
  simulateSensitivity,
} from "./sensitivity.js";
export {
  type SimulateOptions,
  type SimulationMode,
  type SimulationProgress,
  simulateScenario,
} from "./simulate.js";

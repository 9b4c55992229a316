/** The hotspot simulator: replay a workload under candidate key designs (pure, no I/O). */

export type { ModelEnd } from "./cluster/model-constants.js";
export type { LatencySummary, ReadSummary, TimelinePoint } from "./engine/measurements.js";
export { formatDesignComparison } from "./results/report.js";
export { simulationResultToJson } from "./results/result-json.js";
export type { DesignResult, DesignSummary, SimulationResult } from "./results/results.js";
export {
  type DesignSensitivity,
  type SensitivityResult,
  type SensitivitySpan,
  simulateSensitivity,
} from "./results/sensitivity.js";
export {
  type SimulateOptions,
  type SimulationMode,
  type SimulationProgress,
  simulateScenario,
} from "./results/simulate.js";
export { formatDuration, parseDuration } from "./scenario/duration.js";
export {
  findScenarioDesign,
  parseScenario,
  type ReadPattern,
  type Scenario,
  type ScenarioDesign,
  validateScenario,
  type WorkloadGroup,
} from "./scenario/scenario.js";
export { type SampleRow, type SampleRowsOptions, sampleRows } from "./workload/sample-rows.js";

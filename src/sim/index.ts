/** The hotspot simulator: replay a workload under candidate key designs (pure, no I/O). */
export { formatDuration, parseDuration } from "./duration.js";
export { formatComparison, formatMs } from "./report.js";
export { resultToJson } from "./result-json.js";
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
  type Design,
  findDesign,
  parseScenario,
  type ReadPattern,
  type Scenario,
  validateScenario,
  type WorkloadGroup,
} from "./scenario.js";
export {
  type SimulateOptions,
  type SimulationMode,
  type SimulationProgress,
  simulateScenario,
} from "./simulate.js";

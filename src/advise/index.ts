/** The advisor: from a workload (scenario or key sample) to a recommended key design and a report. Pure. */
export { adviceToJson } from "./advice-json.js";
export { type Advice, type AdviceProgress, type AdviseOptions, adviseScenario } from "./advise.js";
export type { BeyondTheKey } from "./beyond-the-key.js";
export {
  BATCH_INTERVALS_S,
  bucketChoices,
  type Candidate,
  type CandidateOptions,
  CHANGE_COMPLEXITY,
  type Change,
  describeChange,
  enumerateCandidates,
} from "./candidates.js";
export type { DecisionRow, Leaning } from "./decision-table.js";
export { type FieldInfo, type FieldRole, type KeyRoles, keyRoles } from "./field-roles.js";
export {
  detectSeparator,
  type KeySampleFormat,
  parseKeyLines,
  type SplitSample,
  splitSample,
} from "./key-sample.js";
export { type Component, type ComponentKind, inferKeyStructure, type KeyStructure } from "./key-structure.js";
export { parseRates, type ReadRate, type WorkloadRates } from "./rates.js";
export { type Evaluated, meets, simplicityOrder } from "./recommend.js";
export { adviceHtml, type HtmlReportOptions } from "./report-html.js";
export { adviceMarkdown, type ReportOptions } from "./report-markdown.js";
export { type SampleWorkload, scenarioFromSample } from "./sample-scenario.js";
export { recommendedSchemaFile } from "./schema-file.js";
export { DEFAULT_TARGETS, type Failure, type Scores, type Targets } from "./score.js";

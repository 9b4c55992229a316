/** The advisor: from a workload (scenario or key sample) to a recommended key design and a report. Pure. */
export { adviceToJson } from "./advice-json.js";
export { type Advice, type AdviceProgress, type AdviseOptions, adviseScenario, labelOf } from "./advise.js";
export type { BeyondTheKey } from "./beyond-the-key.js";
export {
  BATCH_INTERVALS_S,
  bucketChoices,
  type Candidate,
  type CandidateOptions,
  CHANGE_COMPLEXITY,
  describeChange,
  enumerateCandidates,
} from "./candidates.js";
export type { DecisionRow, Leaning } from "./decision-table.js";
export { type Change, designName } from "./design-name.js";
export { type FieldInfo, type FieldRole, type KeyRoles, keyRoles } from "./field-roles.js";
export { HEADROOM_FACTOR, type Headroom } from "./headroom.js";
export { type IdFormat, type IdShape, idShape } from "./id-formats.js";
export {
  detectSeparator,
  type KeySampleFormat,
  parseKeyLines,
  type SplitSample,
  splitSample,
} from "./key-sample.js";
export { type Component, type ComponentKind, inferKeyStructure, type KeyStructure } from "./key-structure.js";
export { parseRates, type ReadRate, type WorkloadRates } from "./rates.js";
export type { ReadService } from "./read-service.js";
export { type RealKey, realKeyOf, realSchemaOf } from "./real-key.js";
export { type Evaluated, meets, meetsWithHeadroom, simplicityOrder } from "./recommend.js";
export { adviceHtml, type HtmlReportOptions } from "./report-html.js";
export { adviceMarkdown, type ReportOptions } from "./report-markdown.js";
export { type SaltPrefix, saltPrefix } from "./salt-prefix.js";
export { type SampleWorkload, scenarioFromSample } from "./sample-scenario.js";
export { realSchema, recommendedSchemaFile } from "./schema-file.js";
export { DEFAULT_TARGETS, type Failure, type Scores, type Targets } from "./score.js";
export { type TimeShape, timeShape } from "./time-shapes.js";

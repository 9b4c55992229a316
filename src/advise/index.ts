/** The advisor: from a workload (scenario or key sample) to a recommended key design and a report. Pure. */
export { adviceToJson } from "./advice-json.js";
export { type Advice, type AdviceProgress, type AdviseOptions, adviseScenario } from "./advise.js";
export type { BeyondTheKey } from "./beyond-the-key.js";
export type { CandidateDesign } from "./candidates.js";
export type { DecisionLeaning, DecisionRow } from "./decision-table.js";
export type { KeyChange } from "./design-name.js";
export type { KeyFieldInfo, KeyFieldRole, KeyRoles } from "./field-roles.js";
export { DEFAULT_GROWTH, type HeadroomCheck } from "./headroom.js";
export type { IdFormat, IdShape } from "./id-formats.js";
export {
  detectKeySeparator,
  type KeySampleFormat,
  parseKeyLines,
  type SplitKeySample,
  splitKeySample,
} from "./key-sample.js";
export {
  inferKeyStructure,
  type KeyComponent,
  type KeyComponentKind,
  type KeyStructure,
} from "./key-structure.js";
export { parseWorkloadRates, type ReadRate, type WorkloadRates } from "./rates.js";
export type { ReadService } from "./read-service.js";
export { type RealKey, realKeyOf } from "./real-key.js";
export { type EvaluatedCandidate, meetsTargets, meetsTargetsWithHeadroom } from "./recommend.js";
export { type AdviceHtmlOptions, adviceHtml } from "./report-html.js";
export { type AdviceMarkdownOptions, adviceMarkdown } from "./report-markdown.js";
export type { SaltPrefixFormat, SaltPrefixShape } from "./salt-prefix.js";
export { type SampleWorkload, scenarioFromSample } from "./sample-scenario.js";
export { recommendedSchemaFile } from "./schema-file.js";
export {
  type AdviceTargets,
  DEFAULT_ADVICE_TARGETS,
  type DesignScores,
  type TargetFailure,
} from "./score.js";
export type { TimeShape, TimeShapeKind } from "./time-shapes.js";

/** The advisor: from a workload (scenario or key sample) to a recommended key design and a report. Pure. */

export { AdviseOptionError, KeySampleError } from "./infer/advise-errors.js";
export type { KeyFieldInfo, KeyFieldRole, KeyRoles } from "./infer/field-roles.js";
export type { IdFormat, IdShape } from "./infer/id-formats.js";
export {
  detectKeySeparator,
  type KeySampleFormat,
  parseKeyLines,
  type SplitKeySample,
  splitKeySample,
} from "./infer/key-sample.js";
export {
  inferKeyStructure,
  type KeyComponent,
  type KeyComponentKind,
  type KeyStructure,
} from "./infer/key-structure.js";
export { parseWorkloadRates, type ReadRate, type WorkloadRates } from "./infer/rates.js";
export { type RealKey, realKeyOf } from "./infer/real-key.js";
export type { SaltPrefixFormat, SaltPrefixShape } from "./infer/salt-prefix.js";
export { type SampleWorkload, scenarioFromSample } from "./infer/sample-scenario.js";
export type { TimeShape, TimeShapeKind } from "./infer/time-shapes.js";
export { type Advice, type AdviceProgress, type AdviseOptions, adviseScenario } from "./judge/advise.js";
export type { BeyondTheKey } from "./judge/beyond-the-key.js";
export type { CandidateDesign } from "./judge/candidates.js";
export type { DecisionLeaning, DecisionRow } from "./judge/decision-table.js";
export type { KeyChange } from "./judge/design-name.js";
export { DEFAULT_GROWTH, type HeadroomCheck } from "./judge/headroom.js";
export type { LossCode, LossFacts, LossReason } from "./judge/loss-reason.js";
export { lossReasonText } from "./judge/loss-reason-text.js";
export { ReadGroupError, type ReadService } from "./judge/read-service.js";
export {
  type EvaluatedCandidate,
  type FailedCandidate,
  type JudgedCandidate,
  meetsTargets,
  meetsTargetsWithHeadroom,
} from "./judge/recommend.js";
export {
  type AdviceTargets,
  DEFAULT_ADVICE_TARGETS,
  type DesignScores,
  type TargetFailure,
  type TargetName,
} from "./judge/score.js";
export { targetFailureText } from "./judge/target-failure-text.js";
export { adviceToJson } from "./report/advice-json.js";
export { beyondTheKeyText } from "./report/beyond-the-key-text.js";
export { type AdviceHtmlOptions, adviceHtml } from "./report/report-html.js";
export { type AdviceMarkdownOptions, adviceMarkdown } from "./report/report-markdown.js";
export { recommendedSchemaFile } from "./report/schema-file.js";

/** Hotspot monitoring core (pure): heavy hitters, bucket skew, concentration shift, alert rules. */
export {
  type Alert,
  type AlertChange,
  AlertEvaluator,
  type AlertRule,
  AlertRuleError,
  type AlertRulesConfig,
  type AlertSnapshot,
  DEFAULT_ALERT_RULES,
  type HotUnitFigures,
  type PrefixShiftFigures,
} from "./alerts.js";
export { BucketLoadError, type BucketSkew, bucketSkew } from "./bucket-skew.js";
export { concentrationShift, type PrefixShares, prefixShares } from "./concentration-shift.js";
export { type HeavyHitter, SpaceSaving } from "./space-saving.js";

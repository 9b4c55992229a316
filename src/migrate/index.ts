/**
 * Re-keying a table: backfill with checkpoints, dual-write during the window, validate, runbook;
 * and the client half of a live re-keying that a running `keyspread serve` follows (`live/`).
 */

export {
  formatStoreAddress,
  namesSameTable,
  openStoreAt,
  parseStoreAddress,
  type StoreAddress,
} from "../store/store-address.js";
export {
  type BackfillOptions,
  type BackfillProgress,
  type BackfillResult,
  BackfillWriteError,
  backfillTable,
} from "./backfill.js";
export { type BackfillCheckpoint, readBackfillCheckpoint } from "./checkpoint.js";
export {
  DualWriteError,
  type DualWriteFailure,
  type DualWriteResult,
  DualWriteTable,
  type MigrationSide,
} from "./dual-write.js";
export {
  type AdvanceLiveMigration,
  advanceLiveMigration,
  waitForService,
} from "./live/advance-live-migration.js";
export { type BeginLiveMigration, beginLiveMigration } from "./live/begin-live-migration.js";
export { MIGRATION_PHASES, type MigrationPhase } from "./live/migration-phases.js";
export { type MigrationRecord, readMigrationRecord } from "./live/migration-record.js";
export { migrationSummary } from "./live/migration-summary.js";
export { isTableRecord } from "./live/record-table.js";
export {
  backfillThroughService,
  type ServiceBackfillResult,
  type ServiceValidationResult,
  validateThroughService,
} from "./live/service-jobs.js";
export { type MigrationPlanInput, migrationPlan } from "./plan.js";
export {
  parseShard,
  readShardPlan,
  type Shard,
  type ShardPlan,
  shardPlanFor,
  shardRange,
  splitKeyspace,
} from "./shards.js";
export {
  type MigrationDifference,
  type MigrationRangeSummary,
  type MigrationValidationReport,
  type ValidateMigrationOptions,
  validateMigration,
} from "./validate.js";
export {
  type MigrationShardValidationReport,
  type ValidateMigrationShardOptions,
  validateMigrationShard,
} from "./validate-shard.js";
export {
  type FollowRateLimitOptions,
  followRateLimit,
  type RateLimitFollower,
  WriteFlowControl,
  type WriteFlowControlOptions,
} from "./write-flow-control.js";

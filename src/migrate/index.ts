/** Re-keying a table: backfill with checkpoints, dual-write during the window, validate, runbook. */

export {
  formatStoreAddress,
  namesSameTable,
  openStoreAt,
  parseStoreAddress,
  type StoreAddress,
} from "../store/open/store-address.js";
export {
  type BackfillOptions,
  type BackfillProgress,
  type BackfillResult,
  BackfillRowError,
  BackfillWriteError,
  backfillTable,
  CheckpointMismatchError,
  SchemaFieldsError,
} from "./backfill.js";
export { type BackfillCheckpoint, readBackfillCheckpoint } from "./checkpoint.js";
export {
  DualWriteError,
  type DualWriteFailure,
  type DualWriteResult,
  DualWriteTable,
  type MigrationSide,
} from "./dual-write.js";
export { MigrateOptionError } from "./migrate-option-error.js";
export { type MigrationPlanInput, migrationPlan, type ShardedRun } from "./plan.js";
export { SameTableError } from "./same-table-error.js";
export {
  parseShard,
  readShardPlan,
  type Shard,
  type ShardPlan,
  ShardPlanMismatch,
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

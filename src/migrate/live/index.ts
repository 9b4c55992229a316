/**
 * The client half of a live re-keying that running `keyspread serve` processes follow: begin,
 * advance, status and the jobs, for a record file (one service) or a record held in the table
 * (every replica that writes it); the problems each step can meet, as data.
 */

export {
  type AdvanceLiveMigration,
  advanceLiveMigration,
  waitForService,
} from "./advance-live-migration.js";
export { type AdvanceReplicas, advanceReplicas } from "./advance-replicas.js";
export { type BeginLiveMigration, beginLiveMigration } from "./begin-live-migration.js";
export {
  type AdvanceRefusal,
  describeBehind,
  describeProblem,
  LiveMigrationError,
  type LiveMigrationErrorCode,
  type LiveMigrationProblem,
  type ValidationState,
} from "./live-migration-error.js";
export {
  advanceMigration,
  dualWritePeriod,
  type FollowingReplica,
  type MigrationAdvanceResult,
  replicasBehind,
} from "./migration-advance.js";
export { checkStep, MIGRATION_PHASES, type MigrationPhase, parsePhase } from "./migration-phases.js";
export {
  type MigrationRecord,
  readMigrationRecord,
  type ServiceStatus,
  updateMigrationRecord,
} from "./migration-record.js";
export { migrationSummary } from "./migration-summary.js";
export { isTableRecord, requireTableRecord, withRecordTable } from "./record-table.js";
export {
  backfillForReplicas,
  type MigrationTables,
  type ReplicaBackfillResult,
  type ReplicaJobContext,
  type ValidateBelowCuts,
  validateForReplicas,
} from "./replica-jobs.js";
export {
  type ListFollowingReplicas,
  replicasStanding,
  replicasSummary,
} from "./replicas-summary.js";
export {
  backfillThroughService,
  type ServiceBackfillResult,
  type ServiceValidationResult,
  validateThroughService,
} from "./service-jobs.js";
export { checkServiceRekeying } from "./service-rekeying.js";
export { readTableRecord, updateTableRecord } from "./table-migration-record.js";

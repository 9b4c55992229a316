/** The client half of a live re-keying that a running `keyspread serve` follows: begin, advance, its jobs. */

export {
  type AdvanceLiveMigration,
  advanceLiveMigration,
  waitForService,
} from "./advance-live-migration.js";
export { type BeginLiveMigration, beginLiveMigration } from "./begin-live-migration.js";
export { MIGRATION_PHASES, type MigrationPhase } from "./migration-phases.js";
export { type MigrationRecord, readMigrationRecord } from "./migration-record.js";
export { migrationSummary } from "./migration-summary.js";
export { isTableRecord } from "./record-table.js";
export {
  backfillThroughService,
  type ServiceBackfillResult,
  type ServiceValidationResult,
  validateThroughService,
} from "./service-jobs.js";

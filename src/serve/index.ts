/** The metrics ingest service (the fleet incident) as a library: `keyspread serve` starts it. */

export { advanceMigration, type MigrationAdvanceResult } from "../migrate/live/migration-advance.js";
export {
  MIGRATION_PHASES,
  type MigrationPhase,
  phaseReadSide,
  phaseWriteSides,
} from "../migrate/live/migration-phases.js";
export {
  type MigrationRecord,
  readMigrationRecord,
  updateMigrationRecord,
} from "../migrate/live/migration-record.js";
export { LiveApiKeys, readApiKeyFile, updateApiKeyFile } from "./auth/api-key-file.js";
export {
  API_KEY_SCOPES,
  type ApiKeyEntry,
  type ApiKeyFile,
  type ApiKeyScope,
  ApiKeyVerifier,
  newApiKey,
} from "./auth/api-keys.js";
export {
  parseTenantQuotas,
  TenantAdmission,
  type TenantQuota,
  type TenantQuotaConfig,
} from "./auth/tenant-admission.js";
export {
  type IngestBodyFormat,
  type IngestBodyProblem,
  IngestBodyRejected,
  ingestBodyFormatOf,
  parseIngestBody,
  parseIngestBuffer,
} from "./ingest/ingest-body.js";
export { DEFAULT_METRICS_BUCKETS, deviceKeyedMetricsSchema, metricsSchema } from "./ingest/metrics-schema.js";
export type { MetricPoint } from "./ingest/point.js";
export { decodeMetricPoints, encodeMetricPoints, METRIC_POINTS_QUALIFIER } from "./ingest/point-codec.js";
export { type IngestService, type IngestServiceOptions, startIngestService } from "./ingest-service.js";
export { migrateToTenantKeys, type TenantMigrationProgress } from "./migration/tenant-namespace-migration.js";

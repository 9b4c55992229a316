/** The metrics ingest service (the fleet incident) as a library: `keyspread serve` starts it. */
export { LiveApiKeys, readApiKeyFile, updateApiKeyFile } from "./api-key-file.js";
export {
  API_KEY_SCOPES,
  type ApiKeyEntry,
  type ApiKeyFile,
  type ApiKeyScope,
  ApiKeyVerifier,
  newApiKey,
} from "./api-keys.js";
export {
  type IngestBodyFormat,
  type IngestBodyProblem,
  IngestBodyRejected,
  ingestBodyFormatOf,
  parseIngestBody,
  parseIngestBuffer,
} from "./ingest-body.js";
export { type IngestService, type IngestServiceOptions, startIngestService } from "./ingest-service.js";
export { DEFAULT_METRICS_BUCKETS, deviceKeyedMetricsSchema, metricsSchema } from "./metrics-schema.js";
export { advanceMigration, type MigrationAdvanceResult } from "./migration-advance.js";
export { MIGRATION_PHASES, type MigrationPhase, phaseReadSide, phaseWriteSides } from "./migration-phases.js";
export { type MigrationRecord, readMigrationRecord, updateMigrationRecord } from "./migration-record.js";
export type { MetricPoint } from "./point.js";
export { decodeMetricPoints, encodeMetricPoints, METRIC_POINTS_QUALIFIER } from "./point-codec.js";
export {
  parseTenantQuotas,
  TenantAdmission,
  type TenantQuota,
  type TenantQuotaConfig,
} from "./tenant-admission.js";
export { migrateToTenantKeys, type TenantMigrationProgress } from "./tenant-namespace-migration.js";

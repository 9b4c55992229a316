/**
 * The metrics ingest service (the fleet incident) as a library: `keyspread serve` starts it. What a
 * user of the service needs: starting it (and the named errors a start may end with), its API key
 * file, its tenant quotas and the point it stores; the row format, the body parser and live re-keying stay inside (`keyspread migrate`
 * drives re-keying).
 */

export { readApiKeyFile, updateApiKeyFile } from "./auth/api-key-file.js";
export {
  API_KEY_SCOPES,
  type ApiKeyEntry,
  type ApiKeyFile,
  type ApiKeyScope,
  newApiKey,
} from "./auth/api-keys.js";
export {
  parseTenantQuotas,
  type TenantQuota,
  type TenantQuotaConfig,
  TenantQuotaError,
} from "./auth/tenant-admission.js";
export type { MetricPoint } from "./ingest/points/point.js";
export { type IngestService, type IngestServiceOptions, startIngestService } from "./ingest-service.js";
export { UnreadableMigrationRecord } from "./migration/migration-follower.js";
export { ServeOptionError } from "./serve-option-error.js";
export { WalDirectoryInUse, WalOfAnotherTable } from "./wal/write-ahead-log.js";

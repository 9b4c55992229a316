/**
 * The service's configuration, checked once: the library's options (or the command line's flags,
 * made into those options) with every default filled in. Every duration is in milliseconds and
 * named so (`…Ms`); every default is here and nowhere else.
 */
import { isIP } from "node:net";
import { type AlertRulesConfig, DEFAULT_ALERT_RULES } from "../monitor/alerts.js";
import type { Store } from "../store/store.js";
import type { AppProfiles } from "../table/salted-table.js";
import type { TenantQuotaConfig } from "./auth/tenant-admission.js";
import { DEFAULT_MAX_TENANTS } from "./auth/tenant-labels.js";
import { DEFAULT_IDEMPOTENCY_WINDOW_MS } from "./ingest/idempotency.js";
import { DEFAULT_METRICS_BUCKETS, DEFAULT_METRICS_INTERVAL_MS } from "./ingest/points/metrics-schema.js";
import { DEFAULT_DEAD_LETTER_AFTER_ATTEMPTS } from "./ingest/retry-queue.js";
import { DEFAULT_MAX_PENDING_POINTS } from "./ingest/write-admission.js";
import { DEFAULT_PREFIX_LENGTH } from "./observe/hotspot-monitor.js";
import { DEFAULT_HEARTBEAT_MS, DEFAULT_LEASE_MS } from "./replicas/replica-registry.js";
import { ServeOptionError } from "./serve-option-error.js";

export interface IngestServiceOptions {
  /**
   * An open store, the service's from now on: it creates its table's schema row if missing, and
   * closes the store on close (or when the start fails).
   */
  store: Store;
  /**
   * Follow the live migration recorded in `file` (`keyspread migrate begin|advance`), whose old
   * table must be `store`; the record may appear while the service runs. `openStore` opens the
   * other table by its address (default: `openStoreAt`).
   */
  migration?: { file: string; inTable?: boolean; openStore?: (address: string) => Promise<Store> };
  /**
   * Bigtable app profiles: `latest` for latest-N reads (single-cluster routing, read-your-writes),
   * `scan` for range reads (multi-cluster routing: dashboards can read the nearest cluster).
   */
  appProfiles?: Pick<AppProfiles, "write" | "latest" | "scan">;
  /** Write-ahead log directory (one per service instance). */
  walDirectory: string;
  /** Salt buckets of the row key (default 16). Fixed for a table. */
  buckets?: number;
  /** Aggregation interval (default 2000 ms). Fixed for a table. */
  intervalMs?: number;
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Largest request body (default 16 MiB): larger is refused with 413. */
  maxBodyBytes?: number;
  /** Request body bytes held at once across all requests (default 4 × maxBodyBytes): beyond, 503. */
  maxInflightBodyBytes?: number;
  /**
   * Request body bytes one tenant (without `authFile`, one client address) holds at once (default
   * a quarter of maxInflightBodyBytes, at least maxBodyBytes): beyond, 503 — its stalled bodies
   * spend its own share, never another tenant's.
   */
  maxInflightBodyBytesPerTenant?: number;
  /** A request body must arrive within this many ms of its headers (default 30 s): beyond, 408 and the connection is closed. */
  bodyTimeoutMs?: number;
  /** Acknowledged-but-unflushed points above which ingest answers 503 (default 2,000,000). */
  maxPendingPoints?: number;
  quotas?: TenantQuotaConfig;
  /** Tenants tracked by name beyond those in `quotas` and `auth` (default 1000); the rest are `(other)`. */
  maxTenants?: number;
  /** How long a latest-N answer is cached (default 2000 ms). */
  latestCacheTtlMs?: number;
  /** Monitoring window: bucket skew, hot prefixes and alert rules are evaluated this often (default 10 s). */
  monitorWindowMs?: number;
  alertRules?: Partial<AlertRulesConfig>;
  /** Also alert on simulated nodes, each serving a contiguous run of buckets (default: buckets only). */
  simulatedNodes?: number;
  /** Device-id characters that make a monitored prefix (default 6). */
  prefixLength?: number;
  /** JSONL access log file (the `keyspread heatmap` format); the /heatmap page works without it. */
  accessLogPath?: string;
  /** Delete rows older than this from stores without their own GC (embedded, memory). */
  retention?: { maxAgeMs: number; sweepEveryMs?: number };
  /** API key file (`keyspread serve keys add`): every request must carry a key; the key names the tenant. */
  authFile?: string;
  /** Without `authFile`, listen on a non-loopback address anyway. */
  insecure?: boolean;
  /** Serve HTTPS with this PEM certificate chain and private key. */
  tls?: { cert: Buffer; key: Buffer };
  /** How long an Idempotency-Key is remembered (default 24 h). */
  idempotencyWindowMs?: number;
  /** Failed attempts after which a row the store keeps refusing goes to the dead-letter file (default 8). */
  deadLetterAfterAttempts?: number;
  /**
   * The table is written by several replicas (a Bigtable table behind a load balancer): each
   * registers in the table with a heartbeat (`replicas/replica-registry.ts`), Idempotency-Keys are
   * claimed in the table (`replicas/table-idempotency.ts`), and each tenant's quota is divided by
   * the live replicas. Without it, keys and quotas are this process's own.
   */
  replicas?: { heartbeatMs?: number; leaseMs?: number };
  /**
   * Graceful stop (`close`, SIGTERM): readiness answers 503 at once, requests are still served for
   * `delayMs` (default 0), then the server stops accepting, finishes what it read, flushes and
   * closes, all within `deadlineMs` (default 25 s: a Kubernetes grace period of 30 s).
   */
  drain?: { delayMs?: number; deadlineMs?: number };
  /** Log lines (JSON): alerts, replays, retries. Default: stderr. */
  log?: (line: string) => void;
}

/** The defaults of every option that has one. */
export const SERVE_DEFAULTS = {
  host: "127.0.0.1",
  /** The library picks a free port; the command line's default is 8080. */
  port: 0,
  cliPort: 8080,
  buckets: DEFAULT_METRICS_BUCKETS,
  intervalMs: DEFAULT_METRICS_INTERVAL_MS,
  maxBodyBytes: 16 * 1024 * 1024,
  maxPendingPoints: DEFAULT_MAX_PENDING_POINTS,
  maxTenants: DEFAULT_MAX_TENANTS,
  bodyTimeoutMs: 30_000,
  idempotencyWindowMs: DEFAULT_IDEMPOTENCY_WINDOW_MS,
  latestCacheTtlMs: 2_000,
  monitorWindowMs: 10_000,
  alertSustainMs: DEFAULT_ALERT_RULES.sustainMs,
  prefixLength: DEFAULT_PREFIX_LENGTH,
  deadLetterAfterAttempts: DEFAULT_DEAD_LETTER_AFTER_ATTEMPTS,
  drainDelayMs: 0,
  /** A Kubernetes grace period of 30 s, less a margin. */
  drainDeadlineMs: 25_000,
  replicaHeartbeatMs: DEFAULT_HEARTBEAT_MS,
  replicaLeaseMs: DEFAULT_LEASE_MS,
} as const;

/** The options with their defaults filled in and checked. */
export interface ServeConfig
  extends Omit<
    IngestServiceOptions,
    | "host"
    | "port"
    | "buckets"
    | "intervalMs"
    | "maxBodyBytes"
    | "maxInflightBodyBytes"
    | "maxInflightBodyBytesPerTenant"
    | "bodyTimeoutMs"
    | "maxPendingPoints"
    | "maxTenants"
    | "latestCacheTtlMs"
    | "monitorWindowMs"
    | "idempotencyWindowMs"
    | "prefixLength"
    | "deadLetterAfterAttempts"
    | "drain"
    | "replicas"
    | "log"
  > {
  log: (line: string) => void;
  host: string;
  port: number;
  buckets: number;
  intervalMs: number;
  maxBodyBytes: number;
  /** Request body bytes held at once across all requests. */
  maxInflightBodyBytes: number;
  /** Request body bytes held at once by one tenant. */
  maxInflightBodyBytesPerTenant: number;
  bodyTimeoutMs: number;
  maxPendingPoints: number;
  maxTenants: number;
  latestCacheTtlMs: number;
  monitorWindowMs: number;
  idempotencyWindowMs: number;
  prefixLength: number;
  deadLetterAfterAttempts: number;
  drain: { delayMs: number; deadlineMs: number };
  replicas: { heartbeatMs: number; leaseMs: number } | undefined;
}

/** The options checked, defaults filled in; a bad value throws naming the option and what is allowed. */
export function serveConfig(options: IngestServiceOptions): ServeConfig {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const host = options.host ?? SERVE_DEFAULTS.host;
  if (options.authFile === undefined && !options.insecure && !isLoopback(host)) {
    throw new ServeOptionError(
      "host",
      host,
      "a loopback address, unless --auth FILE or --insecure is given",
      `refusing to listen on ${host} without --auth: anyone who can reach it could write and read every tenant's points; ` +
        "give --auth FILE (keys from `keyspread serve keys add`), or --insecure to accept that",
    );
  }
  if (
    options.simulatedNodes !== undefined &&
    !(Number.isInteger(options.simulatedNodes) && options.simulatedNodes >= 1)
  ) {
    throw new RangeError(`simulatedNodes ${options.simulatedNodes}: expected a whole number ≥ 1`);
  }
  const intervalMs = options.intervalMs ?? SERVE_DEFAULTS.intervalMs;
  const maxBodyBytes = options.maxBodyBytes ?? SERVE_DEFAULTS.maxBodyBytes;
  const inflightCap = options.maxInflightBodyBytes ?? 4 * maxBodyBytes;
  const tenantInflightCap =
    options.maxInflightBodyBytesPerTenant ?? Math.max(maxBodyBytes, Math.floor(inflightCap / 4));
  const bodyTimeoutMs = options.bodyTimeoutMs ?? SERVE_DEFAULTS.bodyTimeoutMs;
  if (!(Number.isInteger(bodyTimeoutMs) && bodyTimeoutMs >= 100)) {
    throw new RangeError(`bodyTimeoutMs ${bodyTimeoutMs}: expected a whole number of ms ≥ 100`);
  }
  if (!(Number.isInteger(intervalMs) && intervalMs >= 10)) {
    throw new RangeError(`intervalMs ${intervalMs}: expected an integer ≥ 10`);
  }
  if (inflightCap < maxBodyBytes) {
    throw new RangeError(
      `in-flight body budget ${inflightCap} is below the largest body (${maxBodyBytes}): such a body could never be taken`,
    );
  }
  if (!(tenantInflightCap >= maxBodyBytes && tenantInflightCap <= inflightCap)) {
    throw new RangeError(
      `per-tenant in-flight body budget ${tenantInflightCap}: expected from the largest body (${maxBodyBytes}) to the in-flight budget (${inflightCap})`,
    );
  }
  return {
    ...options,
    log,
    host,
    port: options.port ?? SERVE_DEFAULTS.port,
    buckets: options.buckets ?? SERVE_DEFAULTS.buckets,
    intervalMs,
    maxBodyBytes,
    maxInflightBodyBytes: inflightCap,
    maxInflightBodyBytesPerTenant: tenantInflightCap,
    bodyTimeoutMs,
    maxPendingPoints: options.maxPendingPoints ?? SERVE_DEFAULTS.maxPendingPoints,
    maxTenants: options.maxTenants ?? SERVE_DEFAULTS.maxTenants,
    latestCacheTtlMs: options.latestCacheTtlMs ?? SERVE_DEFAULTS.latestCacheTtlMs,
    monitorWindowMs: options.monitorWindowMs ?? SERVE_DEFAULTS.monitorWindowMs,
    idempotencyWindowMs: options.idempotencyWindowMs ?? SERVE_DEFAULTS.idempotencyWindowMs,
    prefixLength: options.prefixLength ?? SERVE_DEFAULTS.prefixLength,
    deadLetterAfterAttempts: options.deadLetterAfterAttempts ?? SERVE_DEFAULTS.deadLetterAfterAttempts,
    drain: {
      delayMs: options.drain?.delayMs ?? SERVE_DEFAULTS.drainDelayMs,
      deadlineMs: options.drain?.deadlineMs ?? SERVE_DEFAULTS.drainDeadlineMs,
    },
    replicas: options.replicas && {
      heartbeatMs: options.replicas.heartbeatMs ?? SERVE_DEFAULTS.replicaHeartbeatMs,
      leaseMs: options.replicas.leaseMs ?? SERVE_DEFAULTS.replicaLeaseMs,
    },
  };
}

function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  return host === "::1" || host === "[::1]";
}

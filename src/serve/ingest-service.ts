/**
 * `keyspread serve` as a library: the metrics ingest service of the fleet incident on a salted table.
 * node:http rather than a framework (measured ~34k vs 29k req/s here, and no import cost).
 *
 *   POST /v1/ingest                              NDJSON or a JSON array of {tenant, deviceId, ts, metrics}
 *   GET  /v1/devices/:id/latest?n=100            newest points first
 *   GET  /v1/devices/:id/range?from&to[&limit][&cursor]   points in [from, to], newest first, paged
 *   GET  /v1/alerts                              alerts firing now
 *   GET  /metrics                                Prometheus text
 *   GET  /heatmap                                live key-access heatmap of the recent access log
 *
 * (answered in `ingest-routes.ts`; this file starts the parts they use, listens, and closes in order).
 *
 * With `auth`, every request carries `Authorization: Bearer <key>`; the key names the tenant (the
 * points' tenant, the device namespace read) and the scopes. Without it, the tenant is what the
 * body (or the read's `tenant` parameter) says, and the service refuses to listen beyond loopback
 * unless told `insecure`.
 *
 * With `migration`, the service follows a live re-keying of its table (`migration-follower.ts`):
 * which tables a flush writes and which one reads come from change with the record's phase, while
 * it runs.
 */
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { isIP } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import type { KeySchema } from "../keys/types.js";
import type { AlertRulesConfig } from "../monitor/alerts.js";
import type { Store } from "../store/store.js";
import { type AppProfiles, SaltedTable } from "../table/salted-table.js";
import { LiveApiKeys } from "./auth/api-key-file.js";
import { TenantAdmission, type TenantQuotaConfig } from "./auth/tenant-admission.js";
import { DEFAULT_MAX_TENANTS, TenantLabels } from "./auth/tenant-labels.js";
import { DeviceReads } from "./http/device-reads.js";
import { IngestRoutes } from "./http/ingest-routes.js";
import { RequestAuth } from "./http/request-auth.js";
import { BodyBudget } from "./http/request-body.js";
import { ServiceLifecycle } from "./http/service-lifecycle.js";
import { CpuTurns } from "./ingest/cpu-turns.js";
import { DEFAULT_IDEMPOTENCY_WINDOW_MS } from "./ingest/idempotency.js";
import { IngestPipeline } from "./ingest/ingest-pipeline.js";
import {
  DEFAULT_METRICS_BUCKETS,
  DEFAULT_METRICS_INTERVAL_MS,
  metricsSchema,
} from "./ingest/points/metrics-schema.js";
import { RetentionSweeper } from "./ingest/retention-sweeper.js";
import { DEFAULT_MAX_PENDING_POINTS } from "./ingest/write-admission.js";
import { MigrationFollower } from "./migration/migration-follower.js";
import { HotspotMonitor } from "./observe/hotspot-monitor.js";
import { RecentAccesses } from "./observe/recent-accesses.js";
import { logEvent } from "./observe/service-events.js";
import { ServiceMetrics } from "./observe/service-metrics.js";
import { ReplicaRegistry } from "./replicas/replica-registry.js";
import { TableIdempotency } from "./replicas/table-idempotency.js";
import type { WalFaults } from "./wal/write-ahead-log.js";

export interface IngestServiceOptions {
  /** An open store; the service creates its table's schema row if missing, and closes the store on close. */
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
  /** Test seam: faults the write-ahead log's writer meets (a full disk). */
  walFaults?: WalFaults;
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

export interface IngestService {
  readonly url: string;
  readonly metrics: ServiceMetrics;
  readonly pipeline: IngestPipeline;
  /** The table device reads come from now (during a migration, the phase's). */
  readonly table: SaltedTable;
  /** Request body bytes held in memory, against the in-flight cap. */
  readonly bodyBudget: BodyBudget;
  /** Readiness and the drain's phase. */
  readonly lifecycle: ServiceLifecycle;
  /** The log directory's replica id (the row key's writer). */
  readonly replicaId: string;
  /** Live replicas writing the table, this one included (1 without `replicas`). */
  liveReplicas(): number;
  /** Drains (see `drain`), flushes every acknowledged point to the store, closes everything. */
  close(): Promise<void>;
}

export const DEFAULT_DRAIN_DEADLINE_MS = 25_000;

const DEFAULT_BODY_TIMEOUT_MS = 30_000;
/** How often node:http checks its own request and header timeouts (its default, 30 s, let a stalled request live 150 s). */
const TIMEOUT_CHECK_EVERY_MS = 1_000;

export async function startIngestService(options: IngestServiceOptions): Promise<IngestService> {
  const settings = serviceSettings(options);
  const schema = metricsSchema(settings.buckets, settings.intervalMs);
  const tables = await openServiceTables(options, schema, settings.log);
  const parts = await startParts(options, settings, schema, tables);
  const routes = new IngestRoutes({
    ...parts,
    lifecycle: parts.lifecycle,
    heatmapNaming: schema,
    maxBodyBytes: settings.maxBodyBytes,
    bodyTimeoutMs: settings.bodyTimeoutMs,
    log: settings.log,
  });
  const server = await listen(options, settings, routes.handle, parts);
  if (parts.apiKeys === undefined) {
    logEvent(settings.log, "no-auth", {
      message:
        "running without --auth: any client that reaches this address can write and read any tenant's points",
    });
  }
  const address = server.address() as AddressInfo;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `${options.tls ? "https" : "http"}://${shown}:${address.port}`,
    metrics: parts.metrics,
    pipeline: parts.pipeline,
    get table() {
      return tables.readTable();
    },
    bodyBudget: parts.budget,
    lifecycle: parts.lifecycle,
    replicaId: parts.pipeline.replicaId,
    liveReplicas: () => parts.replicas.registry?.liveCount() ?? 1,
    close: () => closeService(parts, server, options.store, options.drain ?? {}, settings.log),
  };
}

/** The options' defaults filled in and checked. */
interface ServiceSettings {
  log: (line: string) => void;
  host: string;
  intervalMs: number;
  buckets: number;
  maxBodyBytes: number;
  maxPendingPoints: number;
  /** Request body bytes held at once across all requests. */
  inflightCap: number;
  /** Request body bytes held at once by one tenant. */
  tenantInflightCap: number;
  bodyTimeoutMs: number;
}

function serviceSettings(options: IngestServiceOptions): ServiceSettings {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const host = options.host ?? "127.0.0.1";
  if (options.authFile === undefined && !options.insecure && !isLoopback(host)) {
    throw new Error(
      `refusing to listen on ${host} without --auth: anyone who can reach it could write and read every tenant's points; ` +
        "give --auth FILE (keys from `keyspread serve keys add`), or --insecure to accept that",
    );
  }
  const intervalMs = options.intervalMs ?? DEFAULT_METRICS_INTERVAL_MS;
  if (
    options.simulatedNodes !== undefined &&
    !(Number.isInteger(options.simulatedNodes) && options.simulatedNodes >= 1)
  ) {
    throw new RangeError(`simulatedNodes ${options.simulatedNodes}: expected a whole number ≥ 1`);
  }
  const buckets = options.buckets ?? DEFAULT_METRICS_BUCKETS;
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const maxPendingPoints = options.maxPendingPoints ?? DEFAULT_MAX_PENDING_POINTS;
  const inflightCap = options.maxInflightBodyBytes ?? 4 * maxBodyBytes;
  const tenantInflightCap =
    options.maxInflightBodyBytesPerTenant ?? Math.max(maxBodyBytes, Math.floor(inflightCap / 4));
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
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
    log,
    host,
    intervalMs,
    buckets,
    maxBodyBytes,
    maxPendingPoints,
    inflightCap,
    tenantInflightCap,
    bodyTimeoutMs,
  };
}

/** Which tables flushes write and reads come from: the service's own, or a live migration's phase. */
interface ServiceTables {
  follower: MigrationFollower | undefined;
  writeTables: () => SaltedTable[];
  readTable: () => SaltedTable;
}

async function openServiceTables(
  options: IngestServiceOptions,
  schema: KeySchema,
  log: (line: string) => void,
): Promise<ServiceTables> {
  const openHome = () => openTable(options.store, schema, options.appProfiles);
  const follower =
    options.migration &&
    (await MigrationFollower.open({
      file: options.migration.file,
      ...(options.migration.inTable ? { inTable: true } : {}),
      homeStore: options.store,
      homeSchema: schema,
      openHome,
      ...(options.migration.openStore ? { openStore: options.migration.openStore } : {}),
      ...(options.appProfiles ? { appProfiles: options.appProfiles } : {}),
      walDirectory: options.walDirectory,
      log,
    }));
  const home = follower ? undefined : await openHome();
  return {
    follower,
    writeTables: () => follower?.writeTables() ?? [home!],
    readTable: () => follower?.readTable() ?? home!,
  };
}

/** The running service's parts besides its server: what the routes use, and what closing stops. */
interface ServiceParts {
  tables: ServiceTables;
  metrics: ServiceMetrics;
  labels: TenantLabels;
  apiKeys: LiveApiKeys | undefined;
  monitor: HotspotMonitor;
  accessLog: RecentAccesses;
  turns: CpuTurns;
  pipeline: IngestPipeline;
  reads: DeviceReads;
  admission: TenantAdmission;
  auth: RequestAuth;
  budget: BodyBudget;
  sweeper: RetentionSweeper | undefined;
  monitorTimer: NodeJS.Timeout;
  lifecycle: ServiceLifecycle;
  /** Set once the pipeline's log is open (with `replicas`). */
  replicas: { registry?: ReplicaRegistry };
}

/** Opens the key file, access log and pipeline, starts the migration follower, sweeper and monitoring window. */
async function startParts(
  options: IngestServiceOptions,
  settings: ServiceSettings,
  schema: KeySchema,
  tables: ServiceTables,
): Promise<ServiceParts> {
  const { log } = settings;
  const metrics = new ServiceMetrics();
  const quotaTenants = Object.keys(options.quotas?.tenants ?? {});
  const labels = new TenantLabels(quotaTenants, options.maxTenants ?? DEFAULT_MAX_TENANTS);
  const apiKeys =
    options.authFile === undefined
      ? undefined
      : await LiveApiKeys.open(options.authFile, {
          log,
          onChange: (verifier) => labels.setKnown([...quotaTenants, ...verifier.tenants()]),
        });
  const monitor = new HotspotMonitor(
    {
      buckets: tables.writeTables()[0]!.schema.bucketCount,
      prefixLength: options.prefixLength,
      rules: options.alertRules,
      nodes: options.simulatedNodes,
    },
    metrics,
    log,
  );
  const accessLog = await RecentAccesses.open(options.accessLogPath);
  const turns = new CpuTurns();
  const replicas: ServiceParts["replicas"] = {};
  const lifecycle = new ServiceLifecycle(() => !(replicas.registry?.isLost ?? false));
  const pipeline = await openPipeline(options, settings, schema, tables, {
    metrics,
    monitor,
    accessLog,
    turns,
    apiKeys,
    replicas,
  });
  const reads = new DeviceReads(tables.readTable, {
    intervalMs: settings.intervalMs,
    cacheTtlMs: options.latestCacheTtlMs,
    accessLog,
  });
  const admission = new TenantAdmission(
    options.quotas ?? {},
    Date.now,
    labels,
    () => replicas.registry?.liveCount() ?? 1,
  );
  const showShares = () => {
    metrics.replicasLive.set(replicas.registry?.liveCount() ?? 1);
    for (const [tenant, rate] of admission.shares()) metrics.quotaShare.set({ quota: tenant }, rate);
  };
  showShares();
  replicas.registry?.onHeartbeat(showShares);
  const auth = new RequestAuth(apiKeys, metrics);
  const budget = new BodyBudget(settings.inflightCap, settings.tenantInflightCap, (bytes) =>
    metrics.inflightBodyBytes.set(bytes),
  );
  const sweeper =
    options.retention && new RetentionSweeper(tables.writeTables, { ...options.retention, log });
  await tables.follower?.start({ pipeline, sweeperIdle: () => sweeper?.idle() ?? Promise.resolve() });
  const monitorTimer = setInterval(
    () => monitor.endWindow(Date.now(), admission.takeRefused(), pipeline.takeDeadLetters()),
    options.monitorWindowMs ?? 10_000,
  );
  monitorTimer.unref();
  return {
    tables,
    metrics,
    labels,
    apiKeys,
    monitor,
    accessLog,
    turns,
    pipeline,
    reads,
    admission,
    auth,
    budget,
    sweeper,
    monitorTimer,
    lifecycle,
    replicas,
  };
}

/** Opens the ingest pipeline (replaying its write-ahead log); if it cannot, closes what was opened before it. */
async function openPipeline(
  options: IngestServiceOptions,
  settings: ServiceSettings,
  schema: KeySchema,
  tables: ServiceTables,
  parts: Pick<ServiceParts, "metrics" | "monitor" | "accessLog" | "turns" | "apiKeys" | "replicas">,
): Promise<IngestPipeline> {
  const windowMs = options.idempotencyWindowMs ?? DEFAULT_IDEMPOTENCY_WINDOW_MS;
  const shared = options.replicas;
  const joinReplicas =
    shared &&
    (async (replicaId: string) => {
      // The table the service writes first (its own; during a live migration the phase's, so not a
      // dropped old table) — or the one holding the migration record the replicas follow, where
      // `migrate advance` reads which replicas are live.
      const store = options.migration?.inTable ? options.store : tables.writeTables()[0]!.store;
      parts.replicas.registry = await ReplicaRegistry.join(store, replicaId, {
        ...shared,
        walDirectory: options.walDirectory,
        log: settings.log,
      });
      return new TableIdempotency(store, replicaId, windowMs);
    });
  try {
    return await IngestPipeline.open({
      table: tables.writeTables()[0]!,
      writeTables: tables.writeTables,
      walTarget: `${options.store.name} (schema ${schema.fingerprint})`,
      walDirectory: options.walDirectory,
      intervalMs: settings.intervalMs,
      metrics: parts.metrics,
      monitor: parts.monitor,
      accessLog: parts.accessLog,
      log: settings.log,
      turns: parts.turns,
      idempotencyWindowMs: windowMs,
      deadLetterAfterAttempts: options.deadLetterAfterAttempts,
      maxPendingPoints: settings.maxPendingPoints,
      walFaults: options.walFaults,
      ...(joinReplicas ? { joinReplicas } : {}),
    });
  } catch (error) {
    await parts.replicas.registry?.leave();
    parts.apiKeys?.close();
    await parts.accessLog.close();
    await tables.follower?.abandon();
    throw error;
  }
}

/** Listens with `handler` (HTTPS with `tls`); if it cannot, stops the parts (the caller closes the store). */
async function listen(
  options: IngestServiceOptions,
  settings: ServiceSettings,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  parts: ServiceParts,
): Promise<Server> {
  const { host, bodyTimeoutMs } = settings;
  const checks = { connectionsCheckingInterval: TIMEOUT_CHECK_EVERY_MS };
  const server: Server = options.tls
    ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key, ...checks }, handler)
    : createHttpServer(checks, handler);
  server.keepAliveTimeout = 30_000;
  // Backstops to the body deadline the routes enforce (with an answer): headers alone get no longer.
  server.headersTimeout = bodyTimeoutMs;
  server.requestTimeout = 2 * bodyTimeoutMs;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, host, () => resolve());
    });
  } catch (error) {
    await stopBackgroundWork(parts);
    await parts.pipeline.close();
    await parts.replicas.registry?.leave();
    await parts.tables.follower?.abandon();
    await parts.accessLog.close();
    throw error;
  }
  return server;
}

/** Stops the monitor's windows, the retention sweeps and the key file's reloads. */
async function stopBackgroundWork(parts: ServiceParts): Promise<void> {
  clearInterval(parts.monitorTimer);
  await parts.sweeper?.stop();
  parts.apiKeys?.close();
}

/**
 * The drain (`ServiceLifecycle`): readiness false at once, requests still served for the delay;
 * then the server stops accepting (late requests on open connections get 503 with Retry-After),
 * the requests already read are finished, the pipeline flushes every acknowledged point (rows the
 * store still refuses at the deadline stay in the log for the next start), the replica leaves the
 * registry, and the tables close.
 */
async function closeService(
  parts: ServiceParts,
  server: Server,
  store: Store,
  drain: NonNullable<IngestServiceOptions["drain"]>,
  log: (line: string) => void,
): Promise<void> {
  const delayMs = drain.delayMs ?? 0;
  const deadlineMs = drain.deadlineMs ?? DEFAULT_DRAIN_DEADLINE_MS;
  const deadline = Date.now() + deadlineMs;
  parts.lifecycle.drain();
  logEvent(log, "drain-start", { delayMs, deadlineMs });
  if (delayMs > 0) await sleep(delayMs);
  parts.lifecycle.stop();
  await stopBackgroundWork(parts);
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  // Half of what is left for the requests read, the rest for the flush.
  await parts.lifecycle.idle(Date.now() + (deadline - Date.now()) / 2);
  logEvent(log, "drain-stopped-accepting", { inFlight: parts.lifecycle.requestsInFlight });
  server.closeIdleConnections();
  await parts.pipeline.close(deadline);
  server.closeAllConnections();
  await closed;
  await parts.replicas.registry?.leave();
  await parts.accessLog.close();
  // The follower closes every table it used, the service's own included.
  if (parts.tables.follower) await parts.tables.follower.close();
  else await store.close();
}

/** Opens the service's table, creating it when missing. */
async function openTable(
  store: Store,
  schema: KeySchema,
  appProfiles: IngestServiceOptions["appProfiles"],
): Promise<SaltedTable> {
  return SaltedTable.open(store, schema, {
    create: true,
    ...(appProfiles ? { appProfiles } : {}),
  });
}

function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  return host === "::1" || host === "[::1]";
}

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
import { setTimeout as sleep } from "node:timers/promises";
import type { KeySchema } from "../keys/types.js";
import { SaltedTable } from "../table/salted-table.js";
import { LiveApiKeys } from "./auth/api-key-file.js";
import { TenantAdmission } from "./auth/tenant-admission.js";
import { TenantLabels } from "./auth/tenant-labels.js";
import { DeviceReads } from "./http/device-reads.js";
import { IngestRoutes } from "./http/ingest-routes.js";
import { RequestAuth } from "./http/request-auth.js";
import { BodyBudget } from "./http/request-body.js";
import { ServiceLifecycle } from "./http/service-lifecycle.js";
import { CpuTurns } from "./ingest/cpu-turns.js";
import { IngestPipeline } from "./ingest/ingest-pipeline.js";
import { metricsSchema } from "./ingest/points/metrics-schema.js";
import { RetentionSweeper } from "./ingest/retention-sweeper.js";
import { MigrationFollower } from "./migration/migration-follower.js";
import { HotspotMonitor } from "./observe/hotspot-monitor.js";
import { RecentAccesses } from "./observe/recent-accesses.js";
import { logEvent } from "./observe/service-events.js";
import { ServiceMetrics } from "./observe/service-metrics.js";
import { ReplicaRegistry } from "./replicas/replica-registry.js";
import { TableIdempotency } from "./replicas/table-idempotency.js";
import { type IngestServiceOptions, type ServeConfig, serveConfig } from "./serve-config.js";
import { ServiceResources } from "./service-resources.js";

export type { IngestServiceOptions } from "./serve-config.js";

export interface IngestService {
  readonly url: string;
  /** The options it runs with, defaults filled in. */
  readonly config: ServeConfig;
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

/** How often node:http checks its own request and header timeouts (its default, 30 s, let a stalled request live 150 s). */
const TIMEOUT_CHECK_EVERY_MS = 1_000;

/**
 * Starts the service. What it opens is held in one list (`ServiceResources`), closed in reverse
 * by `close` — and, if the start fails at any step, at once (the store included).
 */
export async function startIngestService(options: IngestServiceOptions): Promise<IngestService> {
  const resources = new ServiceResources();
  // A migration follower, once open, decides when the service's own table closes (it may have been dropped).
  let follower: MigrationFollower | undefined;
  resources.hold("the service's store", options.store, (store) =>
    follower ? follower.closeHome() : store.close(),
  );
  return resources.opening(async () => {
    const config = serveConfig(options);
    const schema = metricsSchema(config.buckets, config.intervalMs);
    const tables = await openServiceTables(config, schema, resources);
    follower = tables.follower;
    const parts = await startParts(config, schema, tables, resources);
    const routes = new IngestRoutes({
      ...parts,
      heatmapNaming: schema,
      maxBodyBytes: config.maxBodyBytes,
      bodyTimeoutMs: config.bodyTimeoutMs,
      log: config.log,
    });
    const server = await listen(config, routes.handle, resources);
    if (parts.apiKeys === undefined) {
      logEvent(config.log, "no-auth", {
        message:
          "running without --auth: any client that reaches this address can write and read any tenant's points",
      });
    }
    const address = server.http.address() as AddressInfo;
    const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
    return {
      url: `${config.tls ? "https" : "http"}://${shown}:${address.port}`,
      config,
      metrics: parts.metrics,
      pipeline: parts.pipeline,
      get table() {
        return tables.readTable();
      },
      bodyBudget: parts.budget,
      lifecycle: parts.lifecycle,
      replicaId: parts.pipeline.replicaId,
      liveReplicas: () => parts.replicas.registry?.liveCount() ?? 1,
      close: () => closeService(parts, server, config, resources),
    };
  });
}

/** Which tables flushes write and reads come from: the service's own, or a live migration's phase. */
interface ServiceTables {
  follower: MigrationFollower | undefined;
  writeTables: () => SaltedTable[];
  readTable: () => SaltedTable;
}

async function openServiceTables(
  config: ServeConfig,
  schema: KeySchema,
  resources: ServiceResources,
): Promise<ServiceTables> {
  const openHome = () => openTable(config, schema);
  if (config.migration === undefined) {
    const home = await openHome();
    return { follower: undefined, writeTables: () => [home], readTable: () => home };
  }
  const follower = resources.hold(
    "the migration follower",
    await MigrationFollower.open({
      file: config.migration.file,
      ...(config.migration.inTable ? { inTable: true } : {}),
      homeStore: config.store,
      homeSchema: schema,
      openHome,
      ...(config.migration.openStore ? { openStore: config.migration.openStore } : {}),
      ...(config.appProfiles ? { appProfiles: config.appProfiles } : {}),
      walDirectory: config.walDirectory,
      log: config.log,
    }),
    (opened) => opened.close(),
  );
  return {
    follower,
    writeTables: () => follower.writeTables(),
    readTable: () => follower.readTable(),
  };
}

/** The running service's parts besides its server: what the routes use, and what the drain stops. */
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
  lifecycle: ServiceLifecycle;
  /** Set once the pipeline's log is open (with `replicas`). */
  replicas: { registry?: ReplicaRegistry };
}

/**
 * Opens the key file, access log and pipeline, starts the migration follower, sweeper and
 * monitoring window; each is held in `resources` as it opens.
 */
async function startParts(
  config: ServeConfig,
  schema: KeySchema,
  tables: ServiceTables,
  resources: ServiceResources,
): Promise<ServiceParts> {
  const { log } = config;
  const metrics = new ServiceMetrics();
  const quotaTenants = Object.keys(config.quotas?.tenants ?? {});
  const labels = new TenantLabels(quotaTenants, config.maxTenants);
  const apiKeys =
    config.authFile === undefined
      ? undefined
      : resources.hold(
          "the API key file's watcher",
          await LiveApiKeys.open(config.authFile, {
            log,
            onChange: (verifier) => labels.setKnown([...quotaTenants, ...verifier.tenants()]),
          }),
          (keys) => keys.close(),
        );
  const monitor = new HotspotMonitor(
    {
      buckets: (tables.writeTables()[0] ?? tables.readTable()).schema.bucketCount,
      prefixLength: config.prefixLength,
      rules: config.alertRules,
      nodes: config.simulatedNodes,
    },
    metrics,
    log,
  );
  const accessLog = resources.hold(
    "the access log",
    await RecentAccesses.open(config.accessLogPath),
    (recent) => recent.close(),
  );
  const turns = new CpuTurns();
  const replicas: ServiceParts["replicas"] = {};
  const lifecycle = new ServiceLifecycle(() => !(replicas.registry?.isLost ?? false));
  const pipeline = resources.hold(
    "the ingest pipeline",
    await openPipeline(config, schema, tables, resources, { metrics, monitor, accessLog, turns, replicas }),
    (opened) => opened.close(),
  );
  const reads = new DeviceReads(tables.readTable, {
    intervalMs: config.intervalMs,
    cacheTtlMs: config.latestCacheTtlMs,
    accessLog,
  });
  const admission = new TenantAdmission(
    config.quotas ?? {},
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
  const budget = new BodyBudget(config.maxInflightBodyBytes, config.maxInflightBodyBytesPerTenant, (bytes) =>
    metrics.inflightBodyBytes.set(bytes),
  );
  const sweeper =
    config.retention &&
    resources.hold(
      "the retention sweeper",
      new RetentionSweeper(tables.writeTables, { ...config.retention, log }),
      (running) => running.stop(),
    );
  await tables.follower?.start({ pipeline, sweeperIdle: () => sweeper?.idle() ?? Promise.resolve() });
  const monitorTimer = resources.hold(
    "the monitoring window",
    setInterval(
      () => monitor.endWindow(Date.now(), admission.takeRefused(), pipeline.takeDeadLetters()),
      config.monitorWindowMs,
    ),
    clearInterval,
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
    lifecycle,
    replicas,
  };
}

/** Opens the ingest pipeline (replaying its write-ahead log), joining the replicas' registry with `replicas`. */
async function openPipeline(
  config: ServeConfig,
  schema: KeySchema,
  tables: ServiceTables,
  resources: ServiceResources,
  parts: Pick<ServiceParts, "metrics" | "monitor" | "accessLog" | "turns" | "replicas">,
): Promise<IngestPipeline> {
  const windowMs = config.idempotencyWindowMs;
  const shared = config.replicas;
  const [firstTable] = tables.writeTables();
  if (firstTable === undefined) throw new Error("the service has no table to write");
  const joinReplicas =
    shared &&
    (async (replicaId: string) => {
      // The table the service writes first (its own; during a live migration the phase's, so not a
      // dropped old table) — or the one holding the migration record the replicas follow, where
      // `migrate advance` reads which replicas are live.
      const store = config.migration?.inTable ? config.store : firstTable.store;
      parts.replicas.registry = resources.hold(
        "the replica's lease",
        await ReplicaRegistry.join(store, replicaId, {
          ...shared,
          walDirectory: config.walDirectory,
          log: config.log,
        }),
        (registry) => registry.leave(),
      );
      return new TableIdempotency(store, replicaId, windowMs);
    });
  return IngestPipeline.open({
    table: firstTable,
    writeTables: tables.writeTables,
    walTarget: `${config.store.name} (schema ${schema.fingerprint})`,
    walDirectory: config.walDirectory,
    intervalMs: config.intervalMs,
    metrics: parts.metrics,
    monitor: parts.monitor,
    accessLog: parts.accessLog,
    log: config.log,
    turns: parts.turns,
    idempotencyWindowMs: windowMs,
    deadLetterAfterAttempts: config.deadLetterAfterAttempts,
    maxPendingPoints: config.maxPendingPoints,
    ...(joinReplicas ? { joinReplicas } : {}),
  });
}

/** The listening server, and its stop: no new connections, then (`closed`) none left. */
interface ListeningServer {
  http: Server;
  /** Stops accepting; resolves once every connection is gone. Idempotent. */
  stopAccepting(): Promise<void>;
}

/** Listens with `handler` (HTTPS with `tls`), held in `resources`. */
async function listen(
  config: ServeConfig,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  resources: ServiceResources,
): Promise<ListeningServer> {
  const { host, bodyTimeoutMs } = config;
  const checks = { connectionsCheckingInterval: TIMEOUT_CHECK_EVERY_MS };
  const http: Server = config.tls
    ? createHttpsServer({ cert: config.tls.cert, key: config.tls.key, ...checks }, handler)
    : createHttpServer(checks, handler);
  http.keepAliveTimeout = 30_000;
  // Backstops to the body deadline the routes enforce (with an answer): headers alone get no longer.
  http.headersTimeout = bodyTimeoutMs;
  http.requestTimeout = 2 * bodyTimeoutMs;
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(config.port, host, () => resolve());
  });
  let closed: Promise<void> | undefined;
  const server: ListeningServer = {
    http,
    stopAccepting: () => {
      closed ??= new Promise<void>((resolve) => http.close(() => resolve()));
      return closed;
    },
  };
  return resources.hold("the HTTP server", server, (listening) => {
    const stopped = listening.stopAccepting();
    listening.http.closeAllConnections();
    return stopped;
  });
}

/**
 * The drain (`ServiceLifecycle`): readiness false at once, requests still served for the delay;
 * then the server stops accepting (late requests on open connections get 503 with Retry-After),
 * the requests already read are finished, and the pipeline flushes every acknowledged point (rows
 * the store still refuses at the deadline stay in the log for the next start). Then everything
 * held closes in reverse: the connections left, the monitoring window, the sweeper, the replica's
 * lease, the access log, the key file's watcher, the migration follower and the tables.
 */
async function closeService(
  parts: ServiceParts,
  server: ListeningServer,
  config: ServeConfig,
  resources: ServiceResources,
): Promise<void> {
  const { delayMs, deadlineMs } = config.drain;
  const deadline = Date.now() + deadlineMs;
  parts.lifecycle.drain();
  logEvent(config.log, "drain-start", { delayMs, deadlineMs });
  if (delayMs > 0) await sleep(delayMs);
  parts.lifecycle.stop();
  void server.stopAccepting();
  server.http.closeIdleConnections();
  // Half of what is left for the requests read, the rest for the flush.
  await parts.lifecycle.idle(Date.now() + (deadline - Date.now()) / 2);
  logEvent(config.log, "drain-stopped-accepting", { inFlight: parts.lifecycle.requestsInFlight });
  server.http.closeIdleConnections();
  await parts.pipeline.close(deadline);
  await resources.closeAll();
}

/** Opens the service's table, creating it when missing. */
async function openTable(config: ServeConfig, schema: KeySchema): Promise<SaltedTable> {
  return SaltedTable.open(config.store, schema, {
    create: true,
    ...(config.appProfiles ? { appProfiles: config.appProfiles } : {}),
  });
}

/**
 * `keyspread serve` as a library: the metrics ingest service of seed 003 on a salted table.
 * node:http rather than a framework (measured ~34k vs 29k req/s here, and no import cost).
 *
 *   POST /v1/ingest                              NDJSON or a JSON array of {tenant, deviceId, ts, metrics}
 *   GET  /v1/devices/:id/latest?n=100            newest points first
 *   GET  /v1/devices/:id/range?from&to[&limit][&cursor]   points in [from, to], newest first, paged
 *   GET  /v1/alerts                              alerts firing now
 *   GET  /metrics                                Prometheus text
 *   GET  /heatmap                                live key-access heatmap of the recent access log
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
import type { KeySchema } from "../keys/types.js";
import type { AlertRulesConfig } from "../monitor/alerts.js";
import type { Store } from "../store/store.js";
import { type AppProfiles, SaltedTable } from "../table/salted-table.js";
import { SchemaMismatchError } from "../table/schema-guard.js";
import { AccessLog } from "./access-log.js";
import { LiveApiKeys } from "./api-key-file.js";
import { CpuTurns } from "./cpu-turns.js";
import { DeviceReads, MAX_RANGE_LIMIT } from "./device-reads.js";
import { HotspotMonitor } from "./hotspot-monitor.js";
import { HttpError, json, RETRY_SOON } from "./http-error.js";
import {
  DEFAULT_IDEMPOTENCY_WINDOW_MS,
  parseIdempotencyKey,
  requestFingerprint,
  scopedIdempotencyKey,
} from "./idempotency.js";
import { BodyRejected, bodyFormatOf, parseIngestBufferFairly } from "./ingest-body.js";
import { IngestPipeline } from "./ingest-pipeline.js";
import { renderLiveHeatmap } from "./live-heatmap.js";
import type { IdempotencyRecord } from "./logged-request.js";
import { DEFAULT_BUCKETS, DEFAULT_INTERVAL_MS, metricsSchema } from "./metrics-schema.js";
import { MigrationFollower } from "./migration-follower.js";
import type { MetricPoint } from "./point.js";
import { decodeRangeCursor } from "./range-cursor.js";
import { type Caller, RequestAuth } from "./request-auth.js";
import { BodyBudget, BodyRefused, readBody } from "./request-body.js";
import { deviceIdOf, intParam, readTenant, timeParam } from "./request-params.js";
import { RetentionSweeper } from "./retention-sweeper.js";
import { ServiceMetrics } from "./service-metrics.js";
import { type QuotaConfig, TenantAdmission } from "./tenant-admission.js";
import { DEFAULT_MAX_TENANTS, TenantLabels } from "./tenant-labels.js";
import type { WalFaults } from "./write-ahead-log.js";

export interface IngestServiceOptions {
  /** An open store; the service creates its table's schema row if missing, and closes the store on close. */
  store: Store;
  /**
   * Follow the live migration recorded in `file` (`keyspread migrate begin|advance`), whose old
   * table must be `store`; the record may appear while the service runs. `openStore` opens the
   * other table by its address (default: `openStoreAt`).
   */
  migration?: { file: string; openStore?: (address: string) => Promise<Store> };
  /**
   * Bigtable app profiles: `latest` for latest-N reads (single-cluster routing, read-your-writes),
   * `scan` for range reads (multi-cluster routing: dashboards can read the nearest cluster).
   */
  appProfiles?: Pick<AppProfiles, "latest" | "scan">;
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
  /** Acknowledged-but-unflushed points above which ingest answers 503 (default 2,000,000). */
  maxPendingPoints?: number;
  quotas?: QuotaConfig;
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
  /** Stops accepting, flushes every acknowledged point to the store, closes everything. */
  close(): Promise<void>;
}

/** A whole request (headers and body) must arrive within this; a slow client cannot hold its budget forever. */
const REQUEST_TIMEOUT_MS = 120_000;

export async function startIngestService(options: IngestServiceOptions): Promise<IngestService> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const host = options.host ?? "127.0.0.1";
  if (options.authFile === undefined && !options.insecure && !isLoopback(host)) {
    throw new Error(
      `refusing to listen on ${host} without --auth: anyone who can reach it could write and read every tenant's points; ` +
        "give --auth FILE (keys from `keyspread serve keys add`), or --insecure to accept that",
    );
  }
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  if (
    options.simulatedNodes !== undefined &&
    !(Number.isInteger(options.simulatedNodes) && options.simulatedNodes >= 1)
  ) {
    throw new RangeError(`simulatedNodes ${options.simulatedNodes}: expected a whole number ≥ 1`);
  }
  const buckets = options.buckets ?? DEFAULT_BUCKETS;
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const maxPendingPoints = options.maxPendingPoints ?? 2_000_000;
  const inflightCap = options.maxInflightBodyBytes ?? 4 * maxBodyBytes;
  if (!(Number.isInteger(intervalMs) && intervalMs >= 10)) {
    throw new RangeError(`intervalMs ${intervalMs}: expected an integer ≥ 10`);
  }
  if (inflightCap < maxBodyBytes) {
    throw new RangeError(
      `in-flight body budget ${inflightCap} is below the largest body (${maxBodyBytes}): such a body could never be taken`,
    );
  }
  const schema = metricsSchema(buckets, intervalMs);
  const openHome = () => openTable(options.store, schema, options.appProfiles);
  const follower =
    options.migration &&
    (await MigrationFollower.open({
      file: options.migration.file,
      homeStore: options.store,
      homeSchema: schema,
      openHome,
      ...(options.migration.openStore ? { openStore: options.migration.openStore } : {}),
      ...(options.appProfiles ? { appProfiles: options.appProfiles } : {}),
      walDirectory: options.walDirectory,
      log,
    }));
  const home = follower ? undefined : await openTable(options.store, schema, options.appProfiles);
  const writeTables = () => follower?.writeTables() ?? [home!];
  const readTable = () => follower?.readTable() ?? home!;
  const metrics = new ServiceMetrics();
  const labels = new TenantLabels(
    Object.keys(options.quotas?.tenants ?? {}),
    options.maxTenants ?? DEFAULT_MAX_TENANTS,
  );
  const apiKeys =
    options.authFile === undefined
      ? undefined
      : await LiveApiKeys.open(options.authFile, {
          log,
          onChange: (verifier) =>
            labels.setKnown([...Object.keys(options.quotas?.tenants ?? {}), ...verifier.tenants()]),
        });
  const monitor = new HotspotMonitor(
    {
      buckets: writeTables()[0]!.schema.bucketCount,
      prefixLength: options.prefixLength,
      rules: options.alertRules,
      nodes: options.simulatedNodes,
    },
    metrics,
    log,
  );
  const accessLog = await AccessLog.open(options.accessLogPath);
  const turns = new CpuTurns();
  let pipeline: IngestPipeline;
  try {
    pipeline = await IngestPipeline.open({
      table: writeTables()[0]!,
      writeTables,
      walTarget: `${options.store.name} (schema ${schema.fingerprint})`,
      walDirectory: options.walDirectory,
      intervalMs,
      metrics,
      monitor,
      accessLog,
      log,
      turns,
      idempotencyWindowMs: options.idempotencyWindowMs ?? DEFAULT_IDEMPOTENCY_WINDOW_MS,
      deadLetterAfterAttempts: options.deadLetterAfterAttempts,
      walFaults: options.walFaults,
    });
  } catch (error) {
    apiKeys?.close();
    await accessLog.close();
    await follower?.abandon();
    throw error;
  }
  const reads = new DeviceReads(readTable, { intervalMs, cacheTtlMs: options.latestCacheTtlMs, accessLog });
  const admission = new TenantAdmission(options.quotas ?? {}, Date.now, labels);
  const auth = new RequestAuth(apiKeys, metrics);
  const budget = new BodyBudget(inflightCap, (bytes) => metrics.inflightBodyBytes.set(bytes));
  const sweeper = options.retention && new RetentionSweeper(writeTables, { ...options.retention, log });
  await follower?.start({ pipeline, sweeperIdle: () => sweeper?.idle() ?? Promise.resolve() });
  const monitorTimer = setInterval(
    () => monitor.endWindow(Date.now(), admission.takeRefused(), pipeline.takeDeadLetters()),
    options.monitorWindowMs ?? 10_000,
  );
  monitorTimer.unref();

  async function ingest(req: IncomingMessage, res: ServerResponse, caller: Caller): Promise<void> {
    const started = performance.now();
    const format = bodyFormatOf(req.headers["content-type"]);
    if (format === undefined) {
      throw new HttpError(
        415,
        `content-type ${JSON.stringify(req.headers["content-type"] ?? "")}: expected application/x-ndjson or application/json`,
      );
    }
    const encoding = req.headers["content-encoding"];
    if (encoding !== undefined && encoding !== "identity") {
      throw new HttpError(415, `content-encoding ${JSON.stringify(encoding)}: send the body uncompressed`);
    }
    let idempotencyKey: string | undefined;
    try {
      const key = parseIdempotencyKey(req.headers["idempotency-key"]);
      idempotencyKey = key === undefined ? undefined : scopedIdempotencyKey(caller?.tenant, key);
    } catch (error) {
      throw new HttpError(400, (error as Error).message);
    }
    let read: Awaited<ReturnType<typeof readBody>>;
    try {
      read = await readBody(req, maxBodyBytes, budget);
    } catch (error) {
      if (!(error instanceof BodyRefused)) throw error;
      throw new HttpError(error.status, error.message, {}, error.status === 503 ? RETRY_SOON : {});
    }
    try {
      if (idempotencyKey === undefined) {
        await acceptBody(res, format, read.body, caller, undefined, started);
        return;
      }
      const fingerprint = requestFingerprint(format, read.body);
      const check = pipeline.idempotency.check(idempotencyKey, fingerprint);
      if (check.state === "done") {
        metrics.idempotentReplays.inc();
        return json(res, 200, { accepted: check.record.accepted }, { "idempotent-replayed": "true" });
      }
      if (check.state === "other-request") {
        throw new HttpError(422, "Idempotency-Key was already used for another request body; use a new key");
      }
      if (check.state === "in-flight") {
        throw new HttpError(
          409,
          "a request with this Idempotency-Key is being processed; retry shortly",
          {},
          RETRY_SOON,
        );
      }
      pipeline.idempotency.begin(idempotencyKey);
      try {
        await acceptBody(res, format, read.body, caller, { key: idempotencyKey, fingerprint }, started);
      } finally {
        pipeline.idempotency.end(idempotencyKey);
      }
    } finally {
      budget.release(read.reserved);
    }
  }

  /** Parses, admits and logs one request body; answers 200 only once it is durable. */
  async function acceptBody(
    res: ServerResponse,
    format: "ndjson" | "json",
    body: Buffer,
    caller: Caller,
    idempotency: Pick<IdempotencyRecord, "key" | "fingerprint"> | undefined,
    started: number,
  ): Promise<void> {
    let points: MetricPoint[];
    try {
      await turns.take();
      points = await parseIngestBufferFairly(body, format, { tenant: caller?.tenant });
    } catch (error) {
      if (!(error instanceof BodyRejected)) throw error;
      throw new HttpError(error.status, error.message, {
        problems: error.problems,
        problemCount: error.problemCount,
      });
    }
    const perTenant = new Map<string, number>();
    const prefixes = new Map<string, number>();
    const prefixLength = monitor.prefixLength;
    for (const point of points) {
      perTenant.set(point.tenant, (perTenant.get(point.tenant) ?? 0) + 1);
      const prefix = point.deviceId.slice(0, prefixLength);
      prefixes.set(prefix, (prefixes.get(prefix) ?? 0) + 1);
    }
    // Points per tenant label: tenants past --max-tenants are counted (and charged) together.
    const tenants = new Map<string, number>();
    for (const [tenant, count] of perTenant) {
      const label = labels.labelOf(tenant);
      tenants.set(label, (tenants.get(label) ?? 0) + count);
    }
    const admitted = admission.admit(tenants);
    if (!admitted.admitted) {
      metrics.rejections.inc({ tenant: admitted.tenant, status: String(admitted.status) });
      const headers: Record<string, string> =
        admitted.status === 429 ? { "retry-after": String(admitted.retryAfterSeconds) } : {};
      return json(res, admitted.status, { error: admitted.message }, headers);
    }
    if (pipeline.pendingPoints + points.length > maxPendingPoints) {
      return json(
        res,
        503,
        { error: "the store is behind: too many points wait for their flush" },
        RETRY_SOON,
      );
    }
    monitor.observePrefixes(prefixes);
    try {
      await pipeline.accept({
        points,
        format,
        body,
        tenant: caller?.tenant,
        idempotency: idempotency && { ...idempotency, accepted: points.length, atMs: Date.now() },
      });
    } catch (error) {
      // Shutting down, or the log's disk failed: nothing of the request was kept, the client may retry.
      throw new HttpError(503, `not accepted: ${(error as Error).message}`, {}, RETRY_SOON);
    }
    for (const [tenant, count] of tenants) metrics.pointsIngested.inc({ tenant }, count);
    metrics.pendingPoints.set(pipeline.pendingPoints);
    metrics.ackLatency.observe((performance.now() - started) / 1000);
    json(res, 200, { accepted: points.length });
  }

  async function deviceRead(
    route: "latest" | "range",
    deviceId: string,
    query: URLSearchParams,
    res: ServerResponse,
    caller: Caller,
  ) {
    const started = performance.now();
    const tenant = readTenant(query, caller);
    if (route === "latest") {
      const n = intParam(query, "n", 100, 1, 10_000);
      const points = await reads.latest(tenant, deviceId, n);
      json(res, 200, { deviceId, points });
    } else {
      const from = timeParam(query, "from");
      const to = timeParam(query, "to");
      if (from > to) throw new HttpError(400, `from ${from} is after to ${to}`);
      const limit = intParam(query, "limit", MAX_RANGE_LIMIT, 1, MAX_RANGE_LIMIT);
      const cursorText = query.get("cursor");
      let cursor: ReturnType<typeof decodeRangeCursor> | undefined;
      try {
        cursor = cursorText === null ? undefined : decodeRangeCursor(cursorText);
      } catch (error) {
        throw new HttpError(400, (error as Error).message);
      }
      json(res, 200, { deviceId, ...(await reads.range(tenant, deviceId, from, to, { limit, cursor })) });
    }
    metrics.readLatency.observe({ route }, (performance.now() - started) / 1000);
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<string> {
    const url = new URL(req.url ?? "/", "http://localhost");
    const path = url.pathname;
    const method = req.method ?? "GET";
    const allow = (expected: string) => {
      if (method !== expected) throw new HttpError(405, `${method} ${path}: use ${expected}`, {});
    };
    if (path === "/v1/ingest") {
      const caller = auth.caller(req, "ingest");
      allow("POST");
      await ingest(req, res, caller);
      return "ingest";
    }
    const device = /^\/v1\/devices\/([^/]+)\/(latest|range)$/.exec(path);
    if (device) {
      const caller = auth.caller(req, "read");
      allow("GET");
      await deviceRead(
        device[2] as "latest" | "range",
        deviceIdOf(device[1]!),
        url.searchParams,
        res,
        caller,
      );
      return device[2]!;
    }
    if (path === "/metrics") {
      auth.caller(req, "admin");
      allow("GET");
      res.writeHead(200, { "content-type": metrics.registry.contentType });
      res.end(await metrics.registry.metrics());
      return "metrics";
    }
    if (path === "/heatmap") {
      auth.caller(req, "admin");
      allow("GET");
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(renderLiveHeatmap(accessLog.recentRecords(), 10));
      return "heatmap";
    }
    if (path === "/v1/alerts") {
      auth.caller(req, "admin");
      allow("GET");
      json(res, 200, { alerts: monitor.activeAlerts() });
      return "alerts";
    }
    auth.caller(req, undefined);
    throw new HttpError(404, `no route ${method} ${path}`);
  }

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    route(req, res).then(
      (name) => metrics.requests.inc({ route: name, status: String(res.statusCode) }),
      (error: unknown) => {
        const status = error instanceof HttpError ? error.status : 500;
        const extra = error instanceof HttpError ? error.extra : {};
        if (status === 500) log(JSON.stringify({ event: "error", path: pathOf(req), error: String(error) }));
        metrics.requests.inc({ route: "error", status: String(status) });
        if (res.headersSent) res.destroy();
        else {
          const headers = error instanceof HttpError ? { ...error.headers } : {};
          // A refused body may still be arriving: read and drop it, then close the connection.
          if (status === 413 || status === 503) headers.connection = "close";
          json(res, status, { error: (error as Error).message, ...extra }, headers);
        }
        req.resume();
      },
    );
  };
  const server: Server = options.tls
    ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, handler)
    : createHttpServer(handler);
  server.keepAliveTimeout = 30_000;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, host, () => resolve());
    });
  } catch (error) {
    clearInterval(monitorTimer);
    await sweeper?.stop();
    apiKeys?.close();
    await pipeline.close();
    await follower?.close();
    await accessLog.close();
    throw error;
  }
  if (apiKeys === undefined) {
    log(
      JSON.stringify({
        event: "no-auth",
        message:
          "running without --auth: any client that reaches this address can write and read any tenant's points",
      }),
    );
  }
  const address = server.address() as AddressInfo;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;

  return {
    url: `${options.tls ? "https" : "http"}://${shown}:${address.port}`,
    metrics,
    pipeline,
    get table() {
      return readTable();
    },
    bodyBudget: budget,
    async close() {
      clearInterval(monitorTimer);
      await sweeper?.stop();
      apiKeys?.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await pipeline.close();
      await closed;
      await accessLog.close();
      // The follower closes every table it used, the service's own included.
      if (follower) await follower.close();
      else await options.store.close();
    },
  };
}

/** Opens the service's table; a table from before device ids were namespaced by tenant gets a pointer to the migration. */
async function openTable(
  store: Store,
  schema: KeySchema,
  appProfiles: IngestServiceOptions["appProfiles"],
): Promise<SaltedTable> {
  try {
    return await SaltedTable.open(store, schema, {
      create: true,
      ...(appProfiles ? { appProfiles } : {}),
    });
  } catch (error) {
    if (
      error instanceof SchemaMismatchError &&
      error.differences.some((line) => /^segments\[0\]\.field: table has "deviceId"/.test(line))
    ) {
      throw new Error(
        `${store.name} was written by an older keyspread serve, whose row keys do not namespace device ids by tenant; ` +
          "copy it to a new table with `keyspread serve migrate` (docs/serve.md, Migration) and serve that",
        { cause: error },
      );
    }
    throw error;
  }
}

function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  return host === "::1" || host === "[::1]";
}

/** The request's path without its query (a query could carry anything; paths are ours). */
function pathOf(req: IncomingMessage): string {
  return (req.url ?? "/").split("?")[0]!;
}

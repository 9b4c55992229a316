/**
 * The ingest service's HTTP routes (listed in `ingest-service.ts`): each request is authorised for
 * its route's scope, answered, and counted; a thrown `HttpError` becomes its status and JSON body.
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import type { KeySchema } from "../../keys/types.js";
import type { TenantAdmission } from "../auth/tenant-admission.js";
import type { CpuTurns } from "../ingest/cpu-turns.js";
import {
  type IdempotencyCheck,
  parseIdempotencyKey,
  requestFingerprint,
  scopedIdempotencyKey,
} from "../ingest/idempotency.js";
import { type IngestPipeline, KeyTakenOver } from "../ingest/ingest-pipeline.js";
import {
  type IngestBodyFormat,
  IngestBodyRejected,
  ingestBodyFormatOf,
  parseIngestBufferFairly,
} from "../ingest/points/ingest-body.js";
import type { MetricPoint } from "../ingest/points/point.js";
import { PendingPointsFull } from "../ingest/write-admission.js";
import type { HotspotMonitor } from "../observe/hotspot-monitor.js";
import { renderLiveHeatmap } from "../observe/live-heatmap.js";
import type { RecentAccesses } from "../observe/recent-accesses.js";
import { logEvent } from "../observe/service-events.js";
import type { ServiceMetrics } from "../observe/service-metrics.js";
import type { TableClaim } from "../replicas/table-idempotency.js";
import type { IdempotencyRecord } from "../wal/idempotency-journal.js";
import { type DeviceReads, MAX_RANGE_LIMIT } from "./device-reads.js";
import { HttpError, json, RETRY_SOON } from "./http-error.js";
import { decodeRangeCursor } from "./range-cursor.js";
import type { Caller, RequestAuth } from "./request-auth.js";
import { type BodyBudget, BodyRefused, readBody } from "./request-body.js";
import { deviceIdOf, intParam, readTenant, timeParam } from "./request-params.js";
import type { ServiceLifecycle } from "./service-lifecycle.js";

/** What the routes answer from: the service's running parts and its request limits. */
export interface RouteContext {
  auth: RequestAuth;
  metrics: ServiceMetrics;
  pipeline: IngestPipeline;
  reads: DeviceReads;
  monitor: HotspotMonitor;
  accessLog: RecentAccesses;
  /** The key schema the /heatmap page names rows through. */
  heatmapNaming: KeySchema;
  admission: TenantAdmission;
  budget: BodyBudget;
  turns: CpuTurns;
  /** Largest request body: larger is refused with 413. */
  maxBodyBytes: number;
  /** A request body must arrive within this (ms) of its headers, else 408. */
  bodyTimeoutMs: number;
  /** Readiness, and the drain that answers late requests 503 before they reach a closing pipeline. */
  lifecycle: ServiceLifecycle;
  log: (line: string) => void;
}

/** A request body as received and as parsed. */
interface ParsedBody {
  format: IngestBodyFormat;
  bytes: Buffer;
  points: MetricPoint[];
  /** Points per tenant the points name. */
  perTenant: Map<string, number>;
}

export class IngestRoutes {
  constructor(private readonly context: RouteContext) {}

  /** The server's request listener: routes the request, then counts it by route and status. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    const { metrics, log, lifecycle } = this.context;
    if (lifecycle.phase === "stopping") {
      // The server stopped accepting: a request on a kept-alive connection is told to go elsewhere.
      metrics.requests.inc({ route: "draining", status: "503" });
      json(
        res,
        503,
        { error: "this replica is shutting down; retry on another" },
        {
          ...RETRY_SOON,
          connection: "close",
        },
      );
      if (!req.complete) res.once("finish", () => req.socket.destroy());
      return;
    }
    lifecycle.started(res);
    this.route(req, res).then(
      (name) => metrics.requests.inc({ route: name, status: String(res.statusCode) }),
      (error: unknown) => {
        const status = error instanceof HttpError ? error.status : 500;
        const extra = error instanceof HttpError ? error.extra : {};
        if (status === 500) logEvent(log, "error", { path: pathOf(req), error: String(error) });
        metrics.requests.inc({ route: "error", status: String(status) });
        if (res.headersSent) res.destroy();
        else if (req.complete) {
          json(res, status, { error: (error as Error).message, ...extra }, headers(error));
        } else {
          // The body is still arriving and will not be read: answer, then close the connection.
          json(
            res,
            status,
            { error: (error as Error).message, ...extra },
            { ...headers(error), connection: "close" },
          );
          res.once("finish", () => req.socket.destroy());
        }
      },
    );
  };

  /** Answers one request; returns its route's name for the request counter. */
  private async route(req: IncomingMessage, res: ServerResponse): Promise<string> {
    const { auth, metrics, accessLog, monitor } = this.context;
    const url = new URL(req.url ?? "/", "http://localhost");
    const path = url.pathname;
    const method = req.method ?? "GET";
    const allow = (expected: string) => {
      if (method !== expected) throw new HttpError(405, `${method} ${path}: use ${expected}`, {});
    };
    if (path === "/healthz" || path === "/readyz") {
      // Probes carry no credentials (a kubelet's): they tell nothing but up or ready.
      allow("GET");
      const ok = path === "/healthz" || this.context.lifecycle.ready;
      json(res, ok ? 200 : 503, { status: ok ? "ok" : this.context.lifecycle.phase });
      return path.slice(1);
    }
    if (path === "/v1/ingest") {
      const caller = auth.caller(req, "ingest");
      allow("POST");
      await this.ingest(req, res, caller);
      return "ingest";
    }
    const device = /^\/v1\/devices\/([^/]+)\/(latest|range)$/.exec(path);
    if (device) {
      const caller = auth.caller(req, "read");
      allow("GET");
      const route = device[2] as "latest" | "range";
      await this.deviceRead(route, deviceIdOf(device[1]!), url.searchParams, res, caller);
      return route;
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
      res.end(renderLiveHeatmap(accessLog.recentRecords(), 10, this.context.heatmapNaming));
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

  /** POST /v1/ingest: reads the body within the budgets, then accepts it once per Idempotency-Key. */
  private async ingest(req: IncomingMessage, res: ServerResponse, caller: Caller): Promise<void> {
    const { pipeline, budget, maxBodyBytes, bodyTimeoutMs } = this.context;
    const started = performance.now();
    const { format, idempotencyKey } = ingestHeaders(req);
    if (!this.context.lifecycle.writable) {
      throw new HttpError(
        503,
        "this replica's id was taken over by another process; retry on another replica",
        {},
        RETRY_SOON,
      );
    }
    let read: Awaited<ReturnType<typeof readBody>>;
    try {
      const owner = caller?.tenant ?? `address ${req.socket.remoteAddress}`;
      read = await readBody(req, { maxBytes: maxBodyBytes, deadlineMs: bodyTimeoutMs, owner }, budget);
    } catch (error) {
      if (!(error instanceof BodyRefused)) throw error;
      throw new HttpError(error.status, error.message, {}, error.status === 503 ? RETRY_SOON : {});
    }
    try {
      const body: ParsedBody = {
        format,
        bytes: read.body,
        ...(await this.parseBody(read.body, format, caller)),
      };
      if (idempotencyKey === undefined) {
        await this.acceptBody(res, body, caller, undefined, started);
        return;
      }
      const key = scopedIdempotencyKey(body.perTenant.keys(), idempotencyKey);
      const fingerprint = requestFingerprint(format, read.body);
      if (this.answerKnownKey(res, pipeline.checkIdempotencyKey(key, fingerprint))) return;
      await pipeline.whileProcessing(key, () =>
        this.acceptOnce(res, body, caller, { key, fingerprint }, started),
      );
    } finally {
      read.release();
    }
  }

  /**
   * Claims the Idempotency-Key where every replica sees it (the table), then admits and logs the
   * body; a claim whose request was not acknowledged is released, so its retry is processed afresh.
   */
  private async acceptOnce(
    res: ServerResponse,
    body: ParsedBody,
    caller: Caller,
    idempotency: Pick<IdempotencyRecord, "key" | "fingerprint">,
    started: number,
  ): Promise<void> {
    const { pipeline } = this.context;
    let claim: TableClaim;
    try {
      claim = await pipeline.claimIdempotencyKey(idempotency.key, idempotency.fingerprint);
    } catch (error) {
      throw new HttpError(
        503,
        `the Idempotency-Key could not be checked: ${(error as Error).message}`,
        {},
        RETRY_SOON,
      );
    }
    if (this.answerKnownKey(res, claim)) return;
    let acknowledged = false;
    try {
      acknowledged = await this.acceptBody(res, body, caller, idempotency, started);
    } finally {
      if (!acknowledged) await pipeline.releaseIdempotencyKey(idempotency.key);
    }
  }

  /**
   * Answers a request whose Idempotency-Key is known here (local check) or in the table (claim): a
   * replay, 422 for another body, 409 while it is processed; false when the key is this request's to process.
   */
  private answerKnownKey(res: ServerResponse, check: IdempotencyCheck | TableClaim): boolean {
    if (check.state === "done") {
      this.context.metrics.idempotentReplays.inc();
      json(res, 200, { accepted: check.record.accepted }, { "idempotent-replayed": "true" });
      return true;
    }
    if (check.state === "other-request") {
      throw new HttpError(422, "Idempotency-Key was already used for another request body; use a new key");
    }
    if (check.state === "in-flight") {
      const retryAfter = "retryAfterSeconds" in check ? String(check.retryAfterSeconds) : "1";
      throw new HttpError(
        409,
        "a request with this Idempotency-Key is being processed; retry shortly",
        {},
        {
          "retry-after": retryAfter,
        },
      );
    }
    return false;
  }

  /** Admits and logs one parsed request body; answers 200 only once it is durable (then returns true). */
  private async acceptBody(
    res: ServerResponse,
    { format, bytes, points, perTenant }: ParsedBody,
    caller: Caller,
    idempotency: Pick<IdempotencyRecord, "key" | "fingerprint"> | undefined,
    started: number,
  ): Promise<boolean> {
    const { pipeline, metrics, monitor, admission } = this.context;
    const admitted = admission.admit(perTenant);
    if (!admitted.admitted) {
      metrics.rejections.inc({ tenant: admitted.tenant, status: String(admitted.status) });
      const headers: Record<string, string> =
        admitted.status === 429 ? { "retry-after": String(admitted.retryAfterSeconds) } : {};
      json(
        res,
        admitted.status,
        { error: admitted.message, code: admitted.reason, tenant: admitted.tenant },
        headers,
      );
      return false;
    }
    try {
      await pipeline.accept({
        points,
        format,
        body: bytes,
        tenant: caller?.tenant,
        idempotency: idempotency && { ...idempotency, accepted: points.length, atMs: Date.now() },
      });
    } catch (error) {
      if (error instanceof PendingPointsFull) {
        json(res, 503, { error: error.message }, RETRY_SOON);
        return false;
      }
      if (error instanceof KeyTakenOver) throw new HttpError(409, error.message, {}, RETRY_SOON);
      // Shutting down, or the log's disk failed: nothing of the request was kept, the client may retry.
      throw new HttpError(503, `not accepted: ${(error as Error).message}`, {}, RETRY_SOON);
    }
    monitor.observePrefixes(this.perPrefix(points));
    for (const [label, count] of admitted.perLabel) metrics.pointsIngested.inc({ tenant: label }, count);
    metrics.pendingPoints.set(pipeline.pendingPoints());
    metrics.ackLatency.observe((performance.now() - started) / 1000);
    json(res, 200, { accepted: points.length });
    return true;
  }

  /**
   * The body's points (parsed in a CPU turn shared fairly between requests) and their count per
   * tenant; a bad body is a 4xx with its problems.
   */
  private async parseBody(
    body: Buffer,
    format: IngestBodyFormat,
    caller: Caller,
  ): Promise<Pick<ParsedBody, "points" | "perTenant">> {
    let points: MetricPoint[];
    try {
      await this.context.turns.take();
      points = await parseIngestBufferFairly(body, format, { tenant: caller?.tenant });
    } catch (error) {
      if (!(error instanceof IngestBodyRejected)) throw error;
      throw new HttpError(error.status, error.message, {
        problems: error.problems,
        problemCount: error.problemCount,
      });
    }
    const perTenant = new Map<string, number>();
    for (const point of points) perTenant.set(point.tenant, (perTenant.get(point.tenant) ?? 0) + 1);
    return { points, perTenant };
  }

  /** Points per device-id prefix, for the hot-prefix monitor. */
  private perPrefix(points: MetricPoint[]): Map<string, number> {
    const prefixLength = this.context.monitor.prefixLength;
    const prefixes = new Map<string, number>();
    for (const point of points) {
      const prefix = point.deviceId.slice(0, prefixLength);
      prefixes.set(prefix, (prefixes.get(prefix) ?? 0) + 1);
    }
    return prefixes;
  }

  /** GET /v1/devices/:id/latest and /range. */
  private async deviceRead(
    route: "latest" | "range",
    deviceId: string,
    query: URLSearchParams,
    res: ServerResponse,
    caller: Caller,
  ): Promise<void> {
    const { reads, metrics } = this.context;
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
}

/** An ingest request's body format and Idempotency-Key, from its headers (415 or 400 when they are not usable). */
function ingestHeaders(req: IncomingMessage): {
  format: IngestBodyFormat;
  idempotencyKey: string | undefined;
} {
  const format = ingestBodyFormatOf(req.headers["content-type"]);
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
  try {
    return { format, idempotencyKey: parseIdempotencyKey(req.headers["idempotency-key"]) };
  } catch (error) {
    throw new HttpError(400, (error as Error).message);
  }
}

function headers(error: unknown): Record<string, string> {
  return error instanceof HttpError ? error.headers : {};
}

/** The request's path without its query (a query could carry anything; paths are ours). */
function pathOf(req: IncomingMessage): string {
  return (req.url ?? "/").split("?")[0]!;
}

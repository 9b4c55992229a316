/**
 * Parses and validates an ingest request body: NDJSON (one point per line) or a JSON array of
 * points. All or nothing: any bad line rejects the request with every problem named by line and
 * field. Hand-written checks rather than a schema library: this is the hot path (≥ 200k points/s
 * on two cores), and the messages must name the line anyway.
 *
 * Poison stops here: the body must be UTF-8, and every string the service keeps (device ids,
 * metric names) must be well-formed Unicode — a lone surrogate (`"\ud800"`) would be acknowledged
 * and then refused by every row-key encoder, or merged with another name by UTF-8 encoding.
 * Problems are described without serialising what the client sent, so no shape of JSON (100,000
 * levels deep, megabyte strings) can make the description itself fail.
 */
import { isUtf8 } from "node:buffer";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { type BodyItem, bodyItemSlices } from "./body-items.js";
import type { MetricPoint } from "./point.js";

declare global {
  interface String {
    /** ES2024 (Node 20): false when the string holds a lone surrogate. */
    isWellFormed(): boolean;
  }
}

export const INGEST_BODY_FORMATS = ["ndjson", "json"] as const;
export type IngestBodyFormat = (typeof INGEST_BODY_FORMATS)[number];

export interface IngestBodyProblem {
  /** 1-based line of the NDJSON body, or 1-based position in the JSON array. */
  line: number;
  /** The offending field (`metrics.temp`), or `(line)` for the line as a whole. */
  field: string;
  message: string;
  /** A line that is not a point object: the JSON type it holds instead. */
  got?: JsonType;
}

/** The type of a JSON value, as a problem names what a line held. */
export type JsonType = "array" | "object" | "string" | "number" | "boolean" | "null";

export class IngestBodyRejected extends Error {
  override readonly name = "IngestBodyRejected";
  constructor(
    readonly problems: IngestBodyProblem[],
    /** Problems found in all; `problems` keeps the first MAX_PROBLEMS. */
    readonly problemCount: number,
    /** 403 when a point names a tenant other than the caller's, else 400. */
    readonly status: 400 | 403 = 400,
  ) {
    const first = problems[0];
    super(
      `${problemCount} problem${problemCount === 1 ? "" : "s"} in the body` +
        (first ? `, first at line ${first.line}, ${first.field}: ${first.message}` : ""),
    );
  }
}

export interface ParseOptions {
  /**
   * The tenant of the caller's credentials: a point without `tenant` belongs to it, and a point
   * naming another tenant is refused (403). Undefined: every point names its tenant.
   */
  tenant?: string;
  /** Characters per parsing slice (default 128 Ki); the answer never depends on it. */
  sliceChars?: number;
}

export const POINT_LIMITS = {
  tenant: /^[A-Za-z0-9._-]{1,64}$/,
  deviceIdMaxLength: 256,
  metricNameMaxLength: 128,
  metricsPerPoint: 256,
  /** The largest epoch-ms timestamp the key's 13 digits hold (year 2286). */
  maxTs: 9_999_999_999_999,
} as const;

const MAX_PROBLEMS = 100;
const POINT_FIELDS = new Set(["tenant", "deviceId", "ts", "metrics"]);

/** Which format a Content-Type names, or undefined when it is not one the service reads. */
export function ingestBodyFormatOf(contentType: string | undefined): IngestBodyFormat | undefined {
  const type = contentType?.split(";")[0]?.trim().toLowerCase();
  if (type === "application/json") return "json";
  if (type === "application/x-ndjson" || type === "application/ndjson" || type === "application/jsonl") {
    return "ndjson";
  }
  return undefined;
}

/**
 * Parses a body as received (the write-ahead log's replay does too): refuses bytes that are not
 * UTF-8 (naming the line) before reading it as text.
 */
export function parseIngestBuffer(
  body: Buffer,
  format: IngestBodyFormat,
  options: ParseOptions = {},
): MetricPoint[] {
  checkUtf8(body);
  return parseIngestBody(body.toString("utf8"), format, options);
}

/**
 * `parseIngestBuffer` for the service: the body is parsed a slice at a time, letting the event
 * loop serve reads between slices, so one 16 MB body cannot stall the service. Same slices, same
 * answer: only the pauses differ.
 */
export async function parseIngestBufferFairly(
  body: Buffer,
  format: IngestBodyFormat,
  options: ParseOptions = {},
): Promise<MetricPoint[]> {
  checkUtf8(body);
  const check = new PointCheck(options.tenant);
  let first = true;
  for (const items of bodyItemSlices(body.toString("utf8"), format, options.sliceChars)) {
    if (!first) await yieldToEventLoop();
    first = false;
    check.items(items);
  }
  return check.finish();
}

export function parseIngestBody(
  text: string,
  format: IngestBodyFormat,
  options: ParseOptions = {},
): MetricPoint[] {
  const check = new PointCheck(options.tenant);
  for (const items of bodyItemSlices(text, format, options.sliceChars)) check.items(items);
  return check.finish();
}

/** The points of a body's items, and the problems of the rest. */
class PointCheck {
  private readonly problems = new Problems();
  private readonly points: MetricPoint[] = [];

  constructor(private readonly ownTenant: string | undefined) {}

  items(items: readonly BodyItem[]): void {
    for (const item of items) {
      if ("problem" in item) this.problems.add(item.line, "(line)", item.problem);
      else if (checkPoint(item.value, item.line, this.problems, this.ownTenant)) {
        this.points.push(item.value as MetricPoint);
      }
    }
  }

  finish(): MetricPoint[] {
    const { points, problems } = this;
    if (points.length === 0 && problems.count === 0)
      problems.add(1, "(body)", "no points: send at least one");
    if (problems.count > 0)
      throw new IngestBodyRejected(problems.listed, problems.count, problems.forbidden ? 403 : 400);
    return points;
  }
}

function checkUtf8(body: Buffer): void {
  if (isUtf8(body)) return;
  let line = 1;
  let start = 0;
  for (let end = body.indexOf(10); ; end = body.indexOf(10, start)) {
    if (!isUtf8(body.subarray(start, end === -1 ? body.length : end)) || end === -1) break;
    start = end + 1;
    line++;
  }
  throw new IngestBodyRejected(
    [{ line, field: "(line)", message: "not valid UTF-8: send the body as UTF-8 text" }],
    1,
  );
}

/** Every problem counted, the first MAX_PROBLEMS kept. */
class Problems {
  count = 0;
  forbidden = false;
  readonly listed: IngestBodyProblem[] = [];

  add(line: number, field: string, message: string, got?: JsonType): void {
    this.count++;
    if (this.listed.length < MAX_PROBLEMS)
      this.listed.push(got === undefined ? { line, field, message } : { line, field, message, got });
  }
}

/** True when the value is a valid point; otherwise its problems are added. No closures: hot path. */
function checkPoint(
  value: unknown,
  line: number,
  problems: Problems,
  ownTenant: string | undefined,
): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    problems.add(
      line,
      "(line)",
      `expected an object {tenant, deviceId, ts, metrics}, got ${describe(value)}`,
      value === null ? "null" : Array.isArray(value) ? "array" : (typeof value as JsonType),
    );
    return false;
  }
  const before = problems.count;
  const point = value as Record<string, unknown>;
  const { deviceId, ts, metrics } = point;
  for (const field in value) {
    if (!POINT_FIELDS.has(field)) {
      problems.add(line, fieldName(field), "unknown field; allowed: tenant, deviceId, ts, metrics");
    }
  }
  let tenant = point.tenant;
  if (tenant === undefined && ownTenant !== undefined) {
    tenant = ownTenant;
    point.tenant = ownTenant;
  }
  if (typeof tenant !== "string" || !POINT_LIMITS.tenant.test(tenant)) {
    problems.add(line, "tenant", `${describe(tenant)}: expected 1–64 letters, digits, ".", "_" or "-"`);
  } else if (ownTenant !== undefined && tenant !== ownTenant) {
    problems.forbidden = true;
    problems.add(line, "tenant", `${describe(tenant)}: these credentials are for tenant "${ownTenant}" only`);
  }
  if (
    typeof deviceId !== "string" ||
    deviceId.length === 0 ||
    deviceId.length > POINT_LIMITS.deviceIdMaxLength
  ) {
    problems.add(
      line,
      "deviceId",
      `${describe(deviceId)}: expected text of 1–${POINT_LIMITS.deviceIdMaxLength} characters`,
    );
  } else if (!deviceId.isWellFormed()) {
    problems.add(line, "deviceId", `${describe(deviceId)}: not well-formed Unicode (a lone surrogate)`);
  }
  if (typeof ts !== "number" || !Number.isInteger(ts) || ts < 0 || ts > POINT_LIMITS.maxTs) {
    problems.add(
      line,
      "ts",
      `${describe(ts)}: expected epoch milliseconds, an integer from 0 to ${POINT_LIMITS.maxTs}`,
    );
  }
  checkMetrics(metrics, line, problems);
  return problems.count === before;
}

/** Adds the problems of a point's `metrics`: an object of 1 to POINT_LIMITS.metricsPerPoint well-named finite numbers. */
function checkMetrics(metrics: unknown, line: number, problems: Problems): void {
  if (typeof metrics !== "object" || metrics === null || Array.isArray(metrics)) {
    problems.add(line, "metrics", `${describe(metrics)}: expected an object of metric name → number`);
  } else {
    let count = 0;
    for (const name in metrics) {
      count++;
      const metric = (metrics as Record<string, unknown>)[name];
      if (name === "__proto__") {
        problems.add(line, fieldName(`metrics.${name}`), "reserved name; choose another");
      } else if (name.length === 0 || name.length > POINT_LIMITS.metricNameMaxLength) {
        problems.add(
          line,
          fieldName(`metrics.${name}`),
          `metric names are 1–${POINT_LIMITS.metricNameMaxLength} characters`,
        );
      } else if (!name.isWellFormed()) {
        problems.add(line, fieldName(`metrics.${name}`), "not well-formed Unicode (a lone surrogate)");
      }
      if (typeof metric !== "number" || !Number.isFinite(metric)) {
        problems.add(line, fieldName(`metrics.${name}`), `${describe(metric)}: expected a finite number`);
      }
    }
    if (count === 0) problems.add(line, "metrics", "empty: expected at least one metric");
    if (count > POINT_LIMITS.metricsPerPoint) {
      problems.add(line, "metrics", `${count} metrics: at most ${POINT_LIMITS.metricsPerPoint} per point`);
    }
  }
}

/** A short, always printable description of a client's value (never serialises a whole object). */
function describe(value: unknown): string {
  if (value === undefined) return "missing";
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === "object") return value === null ? "null" : "an object";
  if (typeof value === "string") {
    return value.length > 40 ? `${JSON.stringify(value.slice(0, 37))}...` : JSON.stringify(value);
  }
  return String(value);
}

/** A field name as it goes into a problem: long client-chosen names are cut. */
function fieldName(name: string): string {
  return name.length > 64 ? `${name.slice(0, 61)}...` : name;
}

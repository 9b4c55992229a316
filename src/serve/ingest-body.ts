/**
 * Parses and validates an ingest request body: NDJSON (one point per line) or a JSON array of
 * points. All or nothing: any bad line rejects the request with every problem named by line and
 * field. Hand-written checks rather than a schema library: this is the hot path (≥ 200k points/s
 * on two cores), and the messages must name the line anyway.
 */
import type { MetricPoint } from "./point.js";

export type BodyFormat = "ndjson" | "json";

export interface BodyProblem {
  /** 1-based line of the NDJSON body, or 1-based position in the JSON array. */
  line: number;
  /** The offending field (`metrics.temp`), or `(line)` for the line as a whole. */
  field: string;
  message: string;
}

export class BodyRejected extends Error {
  override readonly name = "BodyRejected";
  constructor(
    readonly problems: BodyProblem[],
    /** Problems found in all; `problems` keeps the first MAX_PROBLEMS. */
    readonly problemCount: number,
  ) {
    const first = problems[0];
    super(
      `${problemCount} problem${problemCount === 1 ? "" : "s"} in the body` +
        (first ? `, first at line ${first.line}, ${first.field}: ${first.message}` : ""),
    );
  }
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
export function bodyFormatOf(contentType: string | undefined): BodyFormat | undefined {
  const type = contentType?.split(";")[0]?.trim().toLowerCase();
  if (type === "application/json") return "json";
  if (type === "application/x-ndjson" || type === "application/ndjson" || type === "application/jsonl") {
    return "ndjson";
  }
  return undefined;
}

export function parseIngestBody(text: string, format: BodyFormat): MetricPoint[] {
  const items = format === "json" ? parseJsonArray(text) : parseNdjson(text);
  const problems = new Problems();
  if (items.length === 0) problems.add(1, "(body)", "no points: send at least one");
  const points: MetricPoint[] = new Array(items.length);
  for (let index = 0; index < items.length; index++) {
    const { line, value } = items[index]!;
    if (value instanceof SyntaxError) problems.add(line, "(line)", `not valid JSON: ${value.message}`);
    else if (checkPoint(value, line, problems)) points[index] = value as MetricPoint;
  }
  if (problems.count > 0) throw new BodyRejected(problems.listed, problems.count);
  return points;
}

/** Every problem counted, the first MAX_PROBLEMS kept. */
class Problems {
  count = 0;
  readonly listed: BodyProblem[] = [];

  add(line: number, field: string, message: string): void {
    this.count++;
    if (this.listed.length < MAX_PROBLEMS) this.listed.push({ line, field, message });
  }
}

interface Item {
  line: number;
  value: unknown;
}

function parseJsonArray(text: string): Item[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return [{ line: 1, value: error as SyntaxError }];
  }
  const array = Array.isArray(parsed) ? parsed : [parsed];
  return array.map((value, index) => ({ line: index + 1, value }));
}

/**
 * One JSON.parse over the whole body joined as an array (several times faster than a parse per
 * line); when that fails, or its item count shows a line held more or less than one value, each
 * line is parsed alone so the problems name their lines. Raw newlines cannot occur inside JSON
 * strings, so every newline separates lines.
 */
function parseNdjson(text: string): Item[] {
  const trimmed = text.trim();
  if (trimmed === "") return [];
  let lines = 1;
  for (let at = trimmed.indexOf("\n"); at !== -1; at = trimmed.indexOf("\n", at + 1)) lines++;
  try {
    const parsed = JSON.parse(`[${trimmed.replaceAll("\n", ",")}]`) as unknown[];
    if (parsed.length === lines) return parsed.map((value, index) => ({ line: index + 1, value }));
  } catch {
    // Fall through: find the bad lines one by one.
  }
  const items: Item[] = [];
  text.split("\n").forEach((raw, index) => {
    if (raw.trim() === "") return;
    try {
      items.push({ line: index + 1, value: JSON.parse(raw) });
    } catch (error) {
      items.push({ line: index + 1, value: error as SyntaxError });
    }
  });
  return items;
}

/** True when the value is a valid point; otherwise its problems are added. No closures: hot path. */
function checkPoint(value: unknown, line: number, problems: Problems): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    problems.add(
      line,
      "(line)",
      `expected an object {tenant, deviceId, ts, metrics}, got ${describe(value)}`,
    );
    return false;
  }
  const before = problems.count;
  const { tenant, deviceId, ts, metrics } = value as Record<string, unknown>;
  for (const field in value) {
    if (!POINT_FIELDS.has(field))
      problems.add(line, field, "unknown field; allowed: tenant, deviceId, ts, metrics");
  }
  if (typeof tenant !== "string" || !POINT_LIMITS.tenant.test(tenant)) {
    problems.add(line, "tenant", `${describe(tenant)}: expected 1–64 letters, digits, ".", "_" or "-"`);
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
  }
  if (typeof ts !== "number" || !Number.isInteger(ts) || ts < 0 || ts > POINT_LIMITS.maxTs) {
    problems.add(
      line,
      "ts",
      `${describe(ts)}: expected epoch milliseconds, an integer from 0 to ${POINT_LIMITS.maxTs}`,
    );
  }
  if (typeof metrics !== "object" || metrics === null || Array.isArray(metrics)) {
    problems.add(line, "metrics", `${describe(metrics)}: expected an object of metric name → number`);
  } else {
    let count = 0;
    for (const name in metrics) {
      count++;
      const metric = (metrics as Record<string, unknown>)[name];
      if (name === "__proto__") {
        problems.add(line, `metrics.${name}`, "reserved name; choose another");
      } else if (name.length === 0 || name.length > POINT_LIMITS.metricNameMaxLength) {
        problems.add(
          line,
          `metrics.${name}`,
          `metric names are 1–${POINT_LIMITS.metricNameMaxLength} characters`,
        );
      }
      if (typeof metric !== "number" || !Number.isFinite(metric)) {
        problems.add(line, `metrics.${name}`, `${describe(metric)}: expected a finite number`);
      }
    }
    if (count === 0) problems.add(line, "metrics", "empty: expected at least one metric");
    if (count > POINT_LIMITS.metricsPerPoint) {
      problems.add(line, "metrics", `${count} metrics: at most ${POINT_LIMITS.metricsPerPoint} per point`);
    }
  }
  return problems.count === before;
}

function describe(value: unknown): string {
  if (value === undefined) return "missing";
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/**
 * The cell of an aggregated row: every point one device reported in one interval, in one compact
 * value (qualifier `p`), so a row costs one store write however many points it holds.
 *
 * Layout (version 1), integers as unsigned LEB128 varints:
 *   u8 version = 1
 *   varint nameCount, then nameCount × (varint byteLength, UTF-8 bytes)   — tenants and metric names
 *   varint pointCount, then per point:
 *     varint tenant (index into names), varint ts − intervalStart (ms),
 *     varint metricCount, then metricCount × (varint name index, float64 little-endian)
 * Names repeat across points, so each is stored once per row; a typical point of 4 metrics
 * costs about 40 bytes instead of ~120 as JSON.
 */
import type { MetricPoint } from "./point.js";

export const METRIC_POINTS_QUALIFIER = "p";
const VERSION = 1;

export function encodeMetricPoints(points: readonly MetricPoint[], intervalStart: number): Buffer {
  const builder = new PointsCellBuilder(intervalStart);
  for (const point of points) builder.add(point);
  return builder.finish();
}

/**
 * Builds one row's cell a point at a time: the service encodes points as they are acknowledged,
 * so the interval buffer holds compact bytes rather than hundreds of thousands of parsed objects
 * for the garbage collector to copy on every young-generation collection.
 */
export class PointsCellBuilder {
  /** Points added so far. */
  count = 0;
  private readonly names = new Map<string, number>();
  private body = Buffer.allocUnsafe(256);
  private at = 0;

  constructor(readonly intervalStart: number) {}

  add(point: MetricPoint): void {
    let metricCount = 0;
    for (const _ in point.metrics) metricCount++;
    // varints of at most 8 bytes (values < 2^53), 8 per float64.
    this.reserve(3 * 8 + metricCount * 16);
    this.varint(this.nameIndex(point.tenant));
    this.varint(point.ts - this.intervalStart);
    this.varint(metricCount);
    for (const name in point.metrics) {
      this.varint(this.nameIndex(name));
      this.at = this.body.writeDoubleLE(point.metrics[name]!, this.at);
    }
    this.count++;
  }

  /** The cell: version, the names, the point count, the points. */
  finish(): Buffer {
    const names = [...this.names.keys()].map((name) => Buffer.from(name, "utf8"));
    let headerBytes = 1 + 8 + 8;
    for (const bytes of names) headerBytes += 8 + bytes.length;
    const out = Buffer.allocUnsafe(headerBytes + this.at);
    let at = 0;
    const varint = (value: number) => {
      at = writeVarint(out, at, value);
    };
    out[at++] = VERSION;
    varint(names.length);
    for (const bytes of names) {
      varint(bytes.length);
      at += bytes.copy(out, at);
    }
    varint(this.count);
    at += this.body.copy(out, at, 0, this.at);
    return out.subarray(0, at);
  }

  private nameIndex(name: string): number {
    let index = this.names.get(name);
    if (index === undefined) {
      index = this.names.size;
      this.names.set(name, index);
    }
    return index;
  }

  private varint(value: number): void {
    this.at = writeVarint(this.body, this.at, value);
  }

  private reserve(bytes: number): void {
    if (this.at + bytes <= this.body.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.body.length * 2, this.at + bytes));
    this.body.copy(grown, 0, 0, this.at);
    this.body = grown;
  }
}

/** Writes an unsigned LEB128 varint; returns the position after it. */
function writeVarint(out: Buffer, start: number, value: number): number {
  let at = start;
  let rest = value;
  while (rest >= 0x80) {
    out[at++] = (rest % 0x80) | 0x80;
    rest = Math.floor(rest / 0x80);
  }
  out[at++] = rest;
  return at;
}

/** What is wrong with a points cell that cannot be decoded. */
export type PointsCellDamage = "truncated" | "unknown-version" | "unknown-name" | "trailing-bytes";

/** A points cell that cannot be decoded: the device and interval it belongs to, at which byte, and what is wrong. */
export class PointsCellCorrupt extends Error {
  override readonly name = "PointsCellCorrupt";
  constructor(
    readonly deviceId: string,
    readonly intervalStart: number,
    readonly byte: number,
    readonly damage: PointsCellDamage,
    what: string,
  ) {
    super(`points cell of device "${deviceId}" at ${intervalStart}: ${what} (byte ${byte})`);
  }
}

export function decodeMetricPoints(value: Buffer, deviceId: string, intervalStart: number): MetricPoint[] {
  let at = 0;
  const fail = (damage: PointsCellDamage, what: string = damage): never => {
    throw new PointsCellCorrupt(deviceId, intervalStart, at, damage, what);
  };
  const varint = () => {
    let result = 0;
    let scale = 1;
    for (;;) {
      if (at >= value.length) fail("truncated");
      const byte = value[at++]!;
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) return result;
      scale *= 0x80;
    }
  };
  if (value[at++] !== VERSION) fail("unknown-version", `unknown version ${value[0]}`);
  const names: string[] = new Array(varint());
  for (let index = 0; index < names.length; index++) {
    const length = varint();
    if (at + length > value.length) fail("truncated", "truncated name");
    names[index] = value.toString("utf8", at, at + length);
    at += length;
  }
  const name = (index: number) => names[index] ?? fail("unknown-name", `name index ${index} out of range`);
  const points: MetricPoint[] = new Array(varint());
  for (let index = 0; index < points.length; index++) {
    const tenant = name(varint());
    const ts = intervalStart + varint();
    const metrics: Record<string, number> = {};
    for (let count = varint(); count > 0; count--) {
      const metric = name(varint());
      if (at + 8 > value.length) fail("truncated", "truncated value");
      metrics[metric] = value.readDoubleLE(at);
      at += 8;
    }
    points[index] = { tenant, deviceId, ts, metrics };
  }
  if (at !== value.length) fail("trailing-bytes", `${value.length - at} trailing bytes`);
  return points;
}

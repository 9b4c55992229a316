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

export const POINTS_QUALIFIER = "p";
const VERSION = 1;

export function encodePoints(points: readonly MetricPoint[], intervalStart: number): Buffer {
  const names = new Map<string, number>();
  const nameOf = (name: string) => {
    let index = names.get(name);
    if (index === undefined) {
      index = names.size;
      names.set(name, index);
    }
    return index;
  };
  let metricCount = 0;
  for (const point of points) {
    nameOf(point.tenant);
    for (const name in point.metrics) {
      nameOf(name);
      metricCount++;
    }
  }
  const nameBytes = [...names.keys()].map((name) => Buffer.from(name, "utf8"));
  let size = 1 + 5 + 5 + points.length * (5 + 10 + 5) + metricCount * (5 + 8);
  for (const bytes of nameBytes) size += 5 + bytes.length;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  const varint = (value: number) => {
    let rest = value;
    while (rest >= 0x80) {
      out[at++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    out[at++] = rest;
  };
  out[at++] = VERSION;
  varint(nameBytes.length);
  for (const bytes of nameBytes) {
    varint(bytes.length);
    at += bytes.copy(out, at);
  }
  varint(points.length);
  for (const point of points) {
    varint(names.get(point.tenant)!);
    varint(point.ts - intervalStart);
    const metricNames = Object.keys(point.metrics);
    varint(metricNames.length);
    for (const name of metricNames) {
      varint(names.get(name)!);
      at = out.writeDoubleLE(point.metrics[name]!, at);
    }
  }
  return out.subarray(0, at);
}

export function decodePoints(value: Buffer, deviceId: string, intervalStart: number): MetricPoint[] {
  let at = 0;
  const fail = (what: string): never => {
    throw new Error(`points cell of device "${deviceId}" at ${intervalStart}: ${what} (byte ${at})`);
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
  if (value[at++] !== VERSION) fail(`unknown version ${value[0]}`);
  const names: string[] = new Array(varint());
  for (let index = 0; index < names.length; index++) {
    const length = varint();
    if (at + length > value.length) fail("truncated name");
    names[index] = value.toString("utf8", at, at + length);
    at += length;
  }
  const name = (index: number) => names[index] ?? fail(`name index ${index} out of range`);
  const points: MetricPoint[] = new Array(varint());
  for (let index = 0; index < points.length; index++) {
    const tenant = name(varint());
    const ts = intervalStart + varint();
    const metrics: Record<string, number> = {};
    for (let count = varint(); count > 0; count--) {
      const metric = name(varint());
      if (at + 8 > value.length) fail("truncated value");
      metrics[metric] = value.readDoubleLE(at);
      at += 8;
    }
    points[index] = { tenant, deviceId, ts, metrics };
  }
  if (at !== value.length) fail(`${value.length - at} trailing bytes`);
  return points;
}

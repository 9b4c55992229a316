/** Points for the service's tests: one device reading at `ts`, its metric the offset from T0. */
import type { MetricPoint } from "./point.js";

export const T0 = 1_764_484_000_000;

export const point = (deviceId: string, ts: number, tenant = "t"): MetricPoint => ({
  tenant,
  deviceId,
  ts,
  metrics: { v: ts - T0 },
});

export const ndjson = (points: readonly unknown[]) => points.map((p) => JSON.stringify(p)).join("\n");

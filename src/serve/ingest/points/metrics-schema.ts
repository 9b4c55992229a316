/**
 * The service's row key: `salt#tenant#deviceId#reverse(intervalStart)#segment`, salted over the
 * tenant and device. A device id is namespaced by its tenant: one tenant can never read another's
 * points through a shared id, and a device's rows sort newest interval first (the fleet incident's latest-N
 * read is one bucket, one prefix scan); the salt spreads a hot customer's devices over the
 * buckets. `segment` is the write-ahead-log segment the row came from: points of one interval that
 * arrive in different flushes land in different rows instead of overwriting each other, and
 * replaying a segment after a crash rewrites exactly the same rows (idempotent). The trailing
 * literal names the aggregation interval: reads assume every row spans one interval, so a table
 * written with another interval must be refused (its schema fingerprint differs), not misread.
 */
import { compileSchema } from "../../../keys/schema.js";
import type { KeySchema } from "../../../keys/types.js";

export const DEFAULT_METRICS_BUCKETS = 16;
export const DEFAULT_METRICS_INTERVAL_MS = 2000;

export function metricsSchema(
  buckets = DEFAULT_METRICS_BUCKETS,
  intervalMs = DEFAULT_METRICS_INTERVAL_MS,
): KeySchema {
  return compileSchema({
    version: 1,
    name: "keyspread-metrics",
    layout: "text",
    separator: "#",
    segments: [
      { field: "tenant", codec: { type: "string" } },
      { field: "deviceId", codec: { type: "string" } },
      { field: "interval", codec: { type: "timestamp", unit: "ms", reverse: true } },
      { field: "segment", codec: { type: "timestamp", unit: "ms" } },
      { literal: `interval-${intervalMs}ms` },
    ],
    salt: { buckets, fields: ["tenant", "deviceId"] },
  });
}

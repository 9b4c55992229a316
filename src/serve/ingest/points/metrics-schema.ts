/**
 * The service's row key: `salt#tenant#deviceId#reverse(intervalStart)#segment#writer`, salted over the
 * tenant and device. A device id is namespaced by its tenant: one tenant can never read another's
 * points through a shared id, and a device's rows sort newest interval first (the fleet incident's latest-N
 * read is one bucket, one prefix scan); the salt spreads a hot customer's devices over the
 * buckets. `segment` is the write-ahead-log segment the row came from: points of one interval that
 * arrive in different flushes land in different rows instead of overwriting each other, and
 * replaying a segment after a crash rewrites exactly the same rows (idempotent). `writer` is the
 * replica id kept with the log directory (`replicas/replica-id.ts`): segment ids are milliseconds,
 * and two replicas that rotate in the same millisecond would otherwise write the same key for a
 * device whose points reached both, one row replacing the other. The first version of this key
 * (`keyspread-metrics`) had no writer; the schema guard refuses to mix the two on one table. The trailing
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
    name: "keyspread-metrics-v2",
    layout: "text",
    separator: "#",
    segments: [
      { field: "tenant", codec: { type: "string" } },
      { field: "deviceId", codec: { type: "string" } },
      { field: "interval", codec: { type: "timestamp", unit: "ms", reverse: true } },
      { field: "segment", codec: { type: "timestamp", unit: "ms" } },
      { field: "writer", codec: { type: "string" } },
      { literal: `interval-${intervalMs}ms` },
    ],
    salt: { buckets, fields: ["tenant", "deviceId"] },
  });
}

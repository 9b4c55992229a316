/**
 * The largest row a design's workload builds. One row key takes every write of its entity (per
 * value picked into the key) for as long as the key stays the same — its time field's grain, or
 * forever with no time in the key — and keeps the cells for the retention (the column family's GC
 * max-age), or the run when none is given. Bigtable refuses a row over 256 MB (Google Cloud,
 * "Quotas and limits", https://cloud.google.com/bigtable/quotas) and Google recommends keeping a
 * row's values under 100 MB (Google Cloud, "Schema design best practices",
 * https://cloud.google.com/bigtable/docs/schema-design). MB is read as 10^6 bytes, the stricter reading.
 */

import { physicalKeys } from "../../keys/write-shards.js";
import type { CompiledGroup } from "./workload.js";

export const ROW_HARD_LIMIT_BYTES = 256e6;
export const ROW_RECOMMENDED_BYTES = 100e6;

export interface LargestRow {
  /** Bytes the largest row holds. */
  bytes: number;
  /** The group whose row it is. */
  group: string;
  /** Google's recommended most. */
  limit: number;
  /** Bigtable's hard limit: writes to a row past it fail. */
  hardLimit: number;
  ok: boolean;
}

/** Entities sampled to count the row keys a group's entity fields make. */
const SAMPLE = 2048;

/** The largest row any group builds over `horizonS` seconds of cells kept. */
export function largestRow(groups: readonly CompiledGroup[], horizonS: number): LargestRow {
  const rows = groups.map((group) => {
    const keys = entityKeys(group) * group.rowsPerEntity;
    const bytesPerKeyPerS = (group.opsPerS * group.pointsPerRow * group.pointBytes) / keys;
    const keptS = Math.min(group.rowKeyLifetimeS, horizonS);
    return { group: group.name, bytes: Math.max(group.rowBytes, bytesPerKeyPerS * keptS) };
  });
  const largest = rows.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  return {
    ...largest,
    limit: ROW_RECOMMENDED_BYTES,
    hardLimit: ROW_HARD_LIMIT_BYTES,
    ok: largest.bytes <= ROW_RECOMMENDED_BYTES,
  };
}

/**
 * Distinct keys the group's entities write (time, picks and counters held fixed): a sample spread
 * over all entities finds fields of few values (`{i%50}`, a constant); where it finds none, a run
 * of neighbouring entities finds a value shared by neighbours (`{i/50}`).
 */
function entityKeys(group: CompiledGroup): number {
  const n = group.entities;
  const count = Math.min(n, SAMPLE);
  const distinct = (entities: number[]) =>
    new Set(
      // A write-sharded row's bytes are spread over its shards, as its writes are.
      entities.flatMap((entity) =>
        physicalKeys(group.schema, group.writeValues(entity, 0, 0)).map((key) => key.toString("latin1")),
      ),
    ).size;
  const spread = distinct(Array.from({ length: count }, (_, k) => Math.floor(((k + 0.5) * n) / count)));
  if (spread < count) return spread;
  const neighbours = distinct(Array.from({ length: count }, (_, k) => k));
  return Math.max(1, Math.round((n * neighbours) / count));
}

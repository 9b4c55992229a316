/**
 * A salted table's initial tablets: one per bucket, as Phoenix pre-splits salted tables and as
 * keyspread's simulator assumes, instead of one tablet that Bigtable splits only under load.
 */
import { reversedLeadSplits } from "../keys/index.js";
import type { KeySchema } from "../keys/types.js";
import { MAX_INITIAL_SPLITS } from "../store/validate.js";

/**
 * The start key of every bucket after the first: the table's initial split keys. With more
 * buckets than `max` + 1, `max` boundaries spread evenly over them. Unsalted, a key that leads
 * with a reversed uint is split at its leading digits (reversedLeadSplits); any other, not at all.
 */
export function bucketSplits(schema: KeySchema, max = MAX_INITIAL_SPLITS): Buffer[] {
  const starts =
    schema.bucketCount > 1
      ? schema.plan({}).ranges.map((range) => range.start)
      : [Buffer.alloc(0), ...reversedLeadSplits(schema)];
  const boundaries = starts.length - 1;
  if (boundaries <= max) return starts.slice(1);
  return Array.from({ length: max }, (_, i) => starts[1 + Math.floor((i * boundaries) / max)]!);
}

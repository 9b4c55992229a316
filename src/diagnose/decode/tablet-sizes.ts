/**
 * Tablet boundaries and sizes from SampleRowKeys, decoded through the schema: each tablet's key
 * range and bytes; and how much of the table each salt bucket and each value of the leading field
 * (a tenant, a device prefix) holds, counted over the row sample (drawn in proportion to each
 * tablet's bytes), never credited by a tablet's start key: a tablet holds many values, and the
 * one its boundary names may hold a handful of its rows. Pure.
 */
import type { KeySchema } from "../../keys/types.js";
import { type DecodedBoundary, decodeBoundary, valueText } from "./decoded-boundary.js";

/** One SampleRowKeys answer: a key that ends a tablet (empty: the table's end) and the bytes before it. */
export interface RowKeySample {
  key: Buffer;
  offsetBytes: number;
}

export interface TabletSize {
  start: DecodedBoundary;
  end: DecodedBoundary;
  bytes: number;
}

export interface TableShares {
  tablets: TabletSize[];
  totalBytes: number;
  /** Share of the sampled rows per bucket, salted schemas only; sorted by bucket. */
  byBucket: { bucket: number; share: number }[];
  /** The leading field (the first after the salt) and each value's share of the sampled rows, largest first. */
  byLeadingField: { field: string; values: { value: string; share: number }[] } | undefined;
  /** Tablet boundaries the schema could not decode (shown raw). */
  undecoded: number;
}

export function tableShares(
  schema: KeySchema,
  samples: readonly RowKeySample[],
  keySample: readonly Buffer[],
): TableShares {
  const ordered = [...samples].sort((a, b) => a.offsetBytes - b.offsetBytes);
  const tablets: TabletSize[] = [];
  let previous: { key: Buffer | null; offset: number } = { key: null, offset: 0 };
  for (const sample of ordered) {
    tablets.push({
      start: decodeBoundary(schema, previous.key),
      end: decodeBoundary(schema, sample.key),
      bytes: Math.max(0, sample.offsetBytes - previous.offset),
    });
    previous = { key: sample.key, offset: sample.offsetBytes };
  }
  const buckets = new Map<number, number>();
  const leading = schema.fields[0]?.name;
  const values = new Map<string, number>();
  let decoded = 0;
  for (const key of keySample) {
    const boundary = decodeBoundary(schema, key);
    if (boundary.kind !== "decoded") continue;
    decoded++;
    if (schema.bucketCount > 1) buckets.set(boundary.bucket, (buckets.get(boundary.bucket) ?? 0) + 1);
    if (leading !== undefined) {
      const value = valueText(boundary.values[leading]);
      values.set(value, (values.get(value) ?? 0) + 1);
    }
  }
  const share = (count: number) => (decoded === 0 ? 0 : count / decoded);
  return {
    tablets,
    totalBytes: tablets.reduce((sum, tablet) => sum + tablet.bytes, 0),
    byBucket: [...buckets]
      .sort((a, b) => a[0] - b[0])
      .map(([bucket, count]) => ({ bucket, share: share(count) })),
    byLeadingField:
      leading === undefined
        ? undefined
        : {
            field: leading,
            values: [...values]
              .map(([value, count]) => ({ value, share: share(count) }))
              .sort((a, b) => b.share - a.share || (a.value < b.value ? -1 : 1)),
          },
    undecoded: tablets.filter((tablet) => tablet.end.kind === "raw").length,
  };
}

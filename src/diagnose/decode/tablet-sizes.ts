/**
 * Tablet boundaries and sizes from SampleRowKeys, decoded through the schema: each tablet's key
 * range and bytes, and how much of the table each salt bucket and each value of the leading field
 * (a tenant, a device prefix) holds. Pure.
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
  /** Share of bytes per bucket (by the tablet's start key), salted schemas only; sorted by bucket. */
  byBucket: { bucket: number; share: number }[];
  /** The leading field (the first after the salt) and each value's share, largest first. */
  byLeadingField: { field: string; values: { value: string; share: number }[] } | undefined;
  /** Tablet boundaries the schema could not decode (shown raw). */
  undecoded: number;
}

export function tableShares(schema: KeySchema, samples: readonly RowKeySample[]): TableShares {
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
  const totalBytes = tablets.reduce((sum, tablet) => sum + tablet.bytes, 0);
  const share = (bytes: number) => (totalBytes === 0 ? 0 : bytes / totalBytes);
  const buckets = new Map<number, number>();
  const leading = schema.fields[0]?.name;
  const values = new Map<string, number>();
  // A tablet's bytes count for the bucket and leading value its start key names (the first tablet: its end key's).
  for (const tablet of tablets) {
    const at = tablet.start.kind === "table-edge" ? tablet.end : tablet.start;
    if (at.kind === "table-edge") continue;
    if (at.bucket !== undefined && schema.bucketCount > 1)
      buckets.set(at.bucket, (buckets.get(at.bucket) ?? 0) + tablet.bytes);
    if (at.kind === "decoded" && leading !== undefined) {
      const value = valueText(at.values[leading]);
      values.set(value, (values.get(value) ?? 0) + tablet.bytes);
    }
  }
  return {
    tablets,
    totalBytes,
    byBucket: [...buckets]
      .sort((a, b) => a[0] - b[0])
      .map(([bucket, bytes]) => ({ bucket, share: share(bytes) })),
    byLeadingField:
      leading === undefined
        ? undefined
        : {
            field: leading,
            values: [...values]
              .map(([value, bytes]) => ({ value, share: share(bytes) }))
              .sort((a, b) => b.share - a.share || (a.value < b.value ? -1 : 1)),
          },
    undecoded: tablets.filter((tablet) => tablet.end.kind === "raw").length,
  };
}

/**
 * HBaseWD's and old Phoenix's hash put keys hashing to Integer.MIN_VALUE outside [0, N): they
 * are written as those tools write them, and said so, since no bucket scan will see them.
 */
import type { KeySchema } from "../keys/types.js";
import { describeKey, type TableWarning } from "./row-decoder.js";

/** The warning for the keys of a write batch (each with its row's index) whose salt is outside the buckets, if any. */
export function outsideBucketsWarning(
  schema: KeySchema,
  table: string,
  keys: readonly { index: number; key: Buffer }[],
): TableWarning | undefined {
  const { bucketCount } = schema;
  const outside: { index: number; key: string; bucket: number }[] = [];
  let count = 0;
  for (const { index, key } of keys) {
    const bucket = schema.bucketOfKey(key);
    if (bucket < bucketCount) continue;
    count++;
    if (outside.length < 10) outside.push({ index, key: key.toString("hex"), bucket });
  }
  if (count === 0) return undefined;
  const first = outside[0]!;
  return {
    kind: "salt-out-of-range",
    table,
    count,
    buckets: bucketCount,
    first: outside,
    message:
      `${table}: ${count} row(s) written with a salt outside buckets [0, ${bucketCount}) — hash "${schema.spec.salt?.hash}" ` +
      `reproduces HBaseWD's and old Phoenix's Math.abs(Integer.MIN_VALUE) bug — so bucket scans will not see them (point reads will); ` +
      `first: row ${first.index}, key ${describeKey(Buffer.from(first.key, "hex"))}, salt ${first.bucket}`,
  };
}

/**
 * One read of many ranges (a salted table's window over every bucket is one call): rows in key
 * order, adjacent ranges read once each, empty ranges read nothing, overlapping ranges refused by
 * name, one limit over them all — also past the ranges one Bigtable request carries.
 */
import type { KeyRange } from "../store.js";
import { keysOf, text } from "./harness/rows.js";
import type { StoreTest, StoreTestCommon } from "./harness/test-common.js";

/** More ranges than one ReadRows request carries (128), so a store that splits them is tested too. */
const RANGES = 300;
const bucketKey = (bucket: number, row: number) =>
  text(`${String(bucket).padStart(3, "0")}#${String(row).padStart(2, "0")}`);

export function multiRangeReadTests(
  test: StoreTest,
  { expect, fresh, filled, options }: StoreTestCommon,
): void {
  test("reads hundreds of ranges in one call, in key order, only their rows", async () => {
    const keys = Array.from({ length: RANGES }, (_, bucket) =>
      [0, 1, 2].map((row) => bucketKey(bucket, row)),
    );
    const store = await filled(keys.flat());
    // Each bucket's rows 1 and 2 (row 0 lies before the range), buckets in ascending order.
    const ranges: KeyRange[] = keys.map((_, bucket) => ({
      start: bucketKey(bucket, 1),
      end: bucketKey(bucket, 3),
    }));
    const expected = keys.flatMap((bucket) => bucket.slice(1).map((key) => key.toString("hex")));
    expect(await keysOf(store.read(ranges))).toEqual(expected);
    expect(await keysOf(store.read(ranges, { limit: 201 }))).toEqual(expected.slice(0, 201));
    expect(await keysOf(store.read(ranges, { limit: 1 }))).toEqual(expected.slice(0, 1));
  });

  test("reads adjacent ranges once each and skips empty ranges among them", async () => {
    const store = await filled(["a", "b", "c", "d", "e", "f"].map(text));
    const ranges: KeyRange[] = [
      { start: text("a"), end: text("c") },
      { start: text("c"), end: text("c") },
      { start: text("c"), end: text("e") },
      { start: text("ee"), end: text("ee") },
      { start: text("f"), end: null },
    ];
    expect((await keysOf(store.read(ranges))).map((key) => Buffer.from(key, "hex").toString())).toEqual([
      "a",
      "b",
      "c",
      "d",
      "f",
    ]);
    const onlyEmpty = [{ start: text("b"), end: text("b") }];
    expect(await keysOf(store.read(onlyEmpty))).toEqual([]);
  });

  test("refuses overlapping ranges anywhere in a long list, naming the range", async () => {
    const store = await fresh();
    const ranges: KeyRange[] = Array.from({ length: RANGES }, (_, bucket) => ({
      start: bucketKey(bucket, 0),
      end: bucketKey(bucket, 5),
    }));
    ranges[200] = { start: bucketKey(200, 0), end: bucketKey(201, 1) };
    expect(() => store.read(ranges)).toThrow(/ranges\[200\].*sorted/);
  });

  test("reads ranges with long edges, past the bytes one request carries", async () => {
    // 40 ranges of ~8 KB of edges each: over 300 KB of row set, several requests on Bigtable.
    const width = Math.min(options.maxKeyBytes ?? 4096, 4096) - 8;
    const longKey = (i: number, tail: string) =>
      text(`${String(i).padStart(3, "0")}${"x".repeat(width)}${tail}`);
    const store = await filled(Array.from({ length: 40 }, (_, i) => longKey(i, "b")));
    const ranges = Array.from({ length: 40 }, (_, i) => ({ start: longKey(i, "a"), end: longKey(i, "c") }));
    const keys = await keysOf(store.read(ranges));
    expect(keys).toEqual(Array.from({ length: 40 }, (_, i) => longKey(i, "b").toString("hex")));
  });
}

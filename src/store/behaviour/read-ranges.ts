/** `read` takes sorted, non-overlapping half-open ranges and refuses others by name. */
import type { KeyRange } from "../store.js";
import { everything, keysOf, text } from "./harness/rows.js";
import type { StoreTest, StoreTestCommon } from "./harness/test-common.js";

export function readRangeTests(test: StoreTest, { expect, fresh, filled }: StoreTestCommon): void {
  test("reads half-open ranges, with a null end meaning the end of the table", async () => {
    const store = await filled(["a", "b", "c", "d", "e"].map(text));
    const read = (start: string, end: string | null) =>
      keysOf(store.read([{ start: text(start), end: end === null ? null : text(end) }]));
    expect(await read("b", "d")).toEqual(["62", "63"]);
    expect(await read("bb", null)).toEqual(["63", "64", "65"]);
    expect(await read("c", "c")).toEqual([]);
    expect(await read("x", null)).toEqual([]);
    expect(await keysOf(store.read([]))).toEqual([]);
  });

  test("rejects unsorted or overlapping ranges and bad limits", async () => {
    const store = await fresh();
    const bad: KeyRange[] = [
      { start: text("b"), end: text("c") },
      { start: text("a"), end: text("b") },
    ];
    expect(() => store.read(bad)).toThrow(/ranges\[0\].*sorted/);
    expect(() =>
      store.read([
        { start: text("a"), end: null },
        { start: text("b"), end: null },
      ]),
    ).toThrow(/sorted/);
    expect(() => store.read(everything, { limit: -1 })).toThrow(/limit/);
  });
}

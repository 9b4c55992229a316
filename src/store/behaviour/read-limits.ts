/** A read's `limit` counts rows over all its ranges and stops the read once reached. */
import type { KeyRange } from "../store.js";
import { collect, everything, text } from "./harness/rows.js";
import type { StoreTest, StoreTestCommon } from "./harness/test-common.js";

export function readLimitTests(test: StoreTest, { expect, filled }: StoreTestCommon): void {
  test("reads several ranges in order with one global limit", async () => {
    const store = await filled(["a1", "a2", "a3", "b1", "b2", "c1", "c2"].map(text));
    const ranges: KeyRange[] = [
      { start: text("a2"), end: text("b") },
      { start: text("b2"), end: text("c2") },
      { start: text("c2"), end: null },
    ];
    const decoded = async (limit?: number) =>
      (await collect(store.read(ranges, { limit }))).map((row) => row.key.toString());
    expect(await decoded()).toEqual(["a2", "a3", "b2", "c1", "c2"]);
    expect(await decoded(3)).toEqual(["a2", "a3", "b2"]);
    expect(await decoded(1)).toEqual(["a2"]);
    expect(await decoded(0)).toEqual([]);
  });

  test("stops a limited read after the limit even when the table goes on", async () => {
    const keys = Array.from({ length: 2_000 }, (_, i) => text(`k${String(i).padStart(5, "0")}`));
    const store = await filled(keys);
    const iterator = store.read(everything, { limit: 10 })[Symbol.asyncIterator]();
    const seen: string[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      seen.push(next.value.key.toString());
    }
    expect(seen).toEqual(keys.slice(0, 10).map(String));
  });
}

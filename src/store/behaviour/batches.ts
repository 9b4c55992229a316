/** One `write` batch: its mutations of one row apply in order, and a large one applies completely. */
import type { StoreMutation } from "../store.js";
import { collect, everything, hex, put, text } from "./harness/rows.js";
import type { StoreTest, StoreTestCommon } from "./harness/test-common.js";

export function batchTests(test: StoreTest, { expect, fresh, options }: StoreTestCommon): void {
  test("applies the mutations of one batch to one row in order", async () => {
    const store = await fresh();
    const key = hex("00ff00");
    const one = (cells: Record<string, string>, replace?: boolean): StoreMutation => ({
      type: "put",
      key,
      cells: new Map(Object.entries(cells).map(([name, value]) => [name, text(value)])),
      ...(replace === undefined ? {} : { replace }),
    });
    expect((await store.write([one({ a: "1" }), one({ b: "2" }), one({ a: "3" })])).failed).toEqual([]);
    expect((await store.get(key))?.cells).toEqual(
      new Map([
        ["a", text("3")],
        ["b", text("2")],
      ]),
    );
    await store.write([one({ c: "4" }), one({ d: "5" }, true), one({ e: "6" })]);
    expect((await store.get(key))?.cells).toEqual(
      new Map([
        ["d", text("5")],
        ["e", text("6")],
      ]),
    );
    await store.write([one({ f: "7" }), { type: "delete", key }, one({ g: "8" })]);
    expect((await store.get(key))?.cells).toEqual(new Map([["g", text("8")]]));
    await store.write([one({ h: "9" }), { type: "delete", key }]);
    expect(await store.get(key)).toBeUndefined();
  });

  test("applies a large batch completely", async () => {
    const count = options.largeBatchRows ?? 25_000;
    const store = await fresh();
    const keys = Array.from({ length: count }, (_, i) => {
      const key = Buffer.alloc(8);
      key.writeUInt32BE((i * 2_654_435_761) >>> 0, 0); // scattered, not in write order
      key.writeUInt32BE(i, 4);
      return key;
    });
    expect((await store.write(keys.map((key) => put(key, "x".repeat(20))))).failed).toEqual([]);
    const rows = await collect(store.read(everything));
    expect(rows.length).toBe(count);
    const sorted = [...keys].sort(Buffer.compare);
    expect(rows.every((row, i) => row.key.equals(sorted[i]!))).toBe(true);
  });
}

/** `put` sets the cells it names (or replaces the row), `delete` removes rows, `get` reads them back. */
import { collect, everything, hex, keysOf, put, text } from "./harness/rows.js";
import type { StoreTest, StoreTestCommon } from "./harness/test-common.js";

export function putGetTests(test: StoreTest, { expect, fresh }: StoreTestCommon): void {
  test("sets only the cells a put names, replaces on request, deletes rows, and misses absent keys", async () => {
    const store = await fresh();
    const cells = (entries: Record<string, string>) =>
      new Map(Object.entries(entries).map(([name, value]) => [name, text(value)]));
    await store.write([{ type: "put", key: text("k"), cells: cells({ a: "1", b: "2" }) }]);
    await store.write([{ type: "put", key: text("k"), cells: cells({ a: "3" }) }]);
    expect((await store.get(text("k")))?.cells).toEqual(cells({ a: "3", b: "2" }));
    await store.write([{ type: "put", key: text("k"), cells: cells({ c: "4" }), replace: true }]);
    expect((await store.get(text("k")))?.cells).toEqual(cells({ c: "4" }));
    await store.write([put(text("gone")), { type: "delete", key: text("gone") }]);
    expect(await store.get(text("gone"))).toBeUndefined();
    expect(await store.get(text("never"))).toBeUndefined();
    expect(await store.write([])).toEqual({ failed: [] });
    await store.write([{ type: "delete", key: text("never") }]);
    expect(await keysOf(store.read(everything))).toEqual([text("k").toString("hex")]);
  });

  test("round-trips binary keys and values that are not UTF-8", async () => {
    const store = await fresh();
    const key = hex("ff00fe80c0c1f5f8fffe00");
    const value = hex("80ff00c3288d");
    // 8-byte values: the Bigtable client turns them into numbers unless undone.
    const cells = new Map([
      ["bin", value],
      ["q:x#1", hex("00")],
      ["eight", hex("ffffffffffffff80")],
      ["eight+", hex("0000000000000001")],
      ["wide", hex("8000000000000000")],
      ["empty", Buffer.alloc(0)],
    ]);
    await store.write([{ type: "put", key, cells }]);
    const row = await store.get(key);
    expect(row?.key.equals(key)).toBe(true);
    expect(row?.cells).toEqual(cells);
    const [scanned] = await collect(store.read([{ start: hex("ff00fe"), end: hex("ff00ff") }]));
    expect(scanned?.key.equals(key)).toBe(true);
  });
}

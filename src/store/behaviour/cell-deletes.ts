/** `delete` with `qualifiers` removes only those cells; the row goes with its last cell. */
import { everything, keysOf, text } from "./harness/rows.js";
import type { StoreTest, StoreTestCommon } from "./harness/test-common.js";

export function cellDeleteTests(test: StoreTest, { expect, fresh }: StoreTestCommon): void {
  test("deletes named cells, and the row with its last cell", async () => {
    const store = await fresh();
    const key = text("row");
    await store.write([
      {
        type: "put",
        key,
        cells: new Map([
          ["a", text("1")],
          ["b", text("2")],
          ["c", text("3")],
        ]),
      },
    ]);
    await store.write([{ type: "delete", key, qualifiers: ["b", "never-there"] }]);
    expect((await store.get(key))?.cells).toEqual(
      new Map([
        ["a", text("1")],
        ["c", text("3")],
      ]),
    );
    await store.write([{ type: "delete", key, qualifiers: ["a", "c"] }]);
    expect(await store.get(key)).toBeUndefined();
    expect(await keysOf(store.read(everything))).toEqual([]);
    await expect(store.write([{ type: "delete", key, qualifiers: [] }])).rejects.toThrow(
      /mutations\[0\]\.qualifiers must name at least one cell/,
    );
  });
}

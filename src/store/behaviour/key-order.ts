/** Keys sort as unsigned bytes, and rows whose keys prefix each other stay apart. */
import { cellsOf, everything, hex, keysOf, put } from "./harness/rows.js";
import type { StoreTest, StoreTestCommon } from "./harness/test-common.js";

export function keyOrderTests(test: StoreTest, { expect, fresh, filled }: StoreTestCommon): void {
  test("orders keys as unsigned bytes, prefixes before their extensions", async () => {
    const keys = ["ff", "80", "7f", "00", "0000", "00ff", "7fff", "8000", "ff00", "01"].map(hex);
    const store = await filled(keys);
    expect(await keysOf(store.read(everything))).toEqual([
      "00",
      "0000",
      "00ff",
      "01",
      "7f",
      "7fff",
      "80",
      "8000",
      "ff",
      "ff00",
    ]);
  });

  test("keeps rows that are prefixes of each other apart through every mutation", async () => {
    const store = await fresh();
    const keys = ["00", "0000", "0001", "00ff", "01", "0100"].map(hex);
    await store.write(keys.map((key) => put(key)));
    await store.write([
      { type: "delete", key: hex("00") },
      { type: "put", key: hex("0000"), cells: cellsOf("x"), replace: true },
    ]);
    expect(await keysOf(store.read(everything))).toEqual(["0000", "0001", "00ff", "01", "0100"]);
    expect((await store.get(hex("0000")))?.cells).toEqual(cellsOf("x"));
    expect((await store.get(hex("0001")))?.cells).toEqual(cellsOf("0001"));
    expect(await keysOf(store.read([{ start: hex("00"), end: hex("0001") }]))).toEqual(["0000"]);
    expect(await keysOf(store.read([{ start: hex("0000"), end: hex("00ff") }], { limit: 2 }))).toEqual([
      "0000",
      "0001",
    ]);
  });
}

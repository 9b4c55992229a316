/** A persistent store keeps its rows across close and reopen. */
import type { Store } from "../store.js";
import { everything, hex, keysOf, put } from "./harness/rows.js";
import type { StoreTest, StoreTestCommon } from "./harness/test-common.js";

export function reopenTests(
  test: StoreTest,
  { expect, fresh, closeAfterTest, keepOpen }: StoreTestCommon,
  reopen: (store: Store) => Promise<Store>,
): void {
  test("keeps its rows across close and reopen", async () => {
    const store = await fresh();
    await store.write([put(hex("0102")), put(hex("ff"), "last"), put(hex("00"))]);
    keepOpen(store);
    const again = await reopen(store);
    closeAfterTest(again);
    expect(await keysOf(again.read(everything))).toEqual(["00", "0102", "ff"]);
    expect((await again.get(hex("ff")))?.cells.get("v")?.toString()).toBe("last");
  });
}

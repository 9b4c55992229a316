/** A write reports each mutation it could not apply by index, with a reason, and applies the rest. */
import type { Store } from "../store.js";
import { collect, everything, put, text } from "./harness/rows.js";
import type { StoreTest, StoreTestCommon } from "./harness/test-common.js";

export function writeFailureTests(
  test: StoreTest,
  { expect, closeAfterTest, options }: StoreTestCommon,
  openFailing: (failingKeys: readonly Buffer[]) => Promise<Store>,
): void {
  test("reports each failed mutation by index, with its reason, and applies the rest", async () => {
    const failing = [text("bad1"), text("bad2")];
    const store = await openFailing(failing);
    closeAfterTest(store);
    const keys = ["good1", "bad1", "good2", "bad2", "good3"];
    const { failed } = await store.write(keys.map((key) => put(text(key))));
    const expected = options.failingWritesAreAll ? keys : ["bad1", "bad2"];
    expect(failed.map((failure) => failure.key.toString())).toEqual(expected);
    expect(failed.map((failure) => keys[failure.index])).toEqual(expected);
    expect(failed.every((failure) => failure.reason.length > 0)).toBe(true);
    const applied = keys.filter((key) => !expected.includes(key));
    expect((await collect(store.read(everything))).map((row) => row.key.toString())).toEqual(applied);
  });
}

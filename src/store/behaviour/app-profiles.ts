/** Every operation takes an app profile of its own; a malformed one is refused by name. */
import { everything, keysOf, put, text } from "./harness/rows.js";
import type { StoreTest, StoreTestCommon } from "./harness/test-common.js";

export function appProfileTests(test: StoreTest, { expect, filled }: StoreTestCommon): void {
  test("accepts an app profile per operation and rejects a malformed one by name", async () => {
    const store = await filled(["a", "b"].map(text));
    const appProfile = "single-cluster_1.x";
    expect((await store.write([put(text("c"))], { appProfile })).failed).toEqual([]);
    expect((await store.get(text("c"), { appProfile }))?.key.toString()).toBe("c");
    expect(await keysOf(store.read(everything, { appProfile }))).toHaveLength(3);
    expect(() => store.read(everything, { appProfile: "bad profile" })).toThrow(
      /appProfile "bad profile" is not an app profile id/,
    );
    await expect(store.get(text("a"), { appProfile: "" })).rejects.toThrow(/appProfile ""/);
  });
}

/** Keys from one byte up to the store's limit are accepted; empty and longer keys are refused by index. */
import { put, text } from "./harness/rows.js";
import type { StoreTest, StoreTestCommon } from "./harness/test-common.js";

export function keySizeTests(test: StoreTest, { expect, fresh, options }: StoreTestCommon): void {
  test("accepts keys up to its limit and rejects longer ones clearly", async () => {
    const max = options.maxKeyBytes ?? 4096;
    const store = await fresh();
    const longest = Buffer.alloc(max, 0xab);
    longest[max - 1] = 0x01;
    expect((await store.write([put(longest)])).failed).toEqual([]);
    expect((await store.get(longest))?.key.equals(longest)).toBe(true);
    await expect(store.write([put(text("ok")), put(Buffer.alloc(max + 1, 1))])).rejects.toThrow(
      new RegExp(`mutations\\[1\\]\\.key is ${max + 1} bytes`),
    );
    expect(await store.get(text("ok"))).toBeUndefined();
    await expect(store.write([put(Buffer.alloc(0))])).rejects.toThrow(/mutations\[0\]\.key is 0 bytes/);
  });
}

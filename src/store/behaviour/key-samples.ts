/** `sampleKeys` returns sorted keys of the table, at most as many as asked for. */
import { text } from "./harness/rows.js";
import type { StoreTest, StoreTestCommon } from "./harness/test-common.js";

export function keySampleTests(test: StoreTest, { expect, fresh, filled }: StoreTestCommon): void {
  test("samples sorted keys of the table", async () => {
    const empty = await fresh();
    expect((await empty.sampleKeys(4)).filter((key) => key.length > 0)).toEqual([]);
    const keys = Array.from({ length: 500 }, (_, i) => text(`s${String(i).padStart(4, "0")}`));
    const store = await filled(keys);
    const sample = (await store.sampleKeys(10)).filter((key) => key.length > 0);
    expect(sample.length).toBeGreaterThan(0);
    expect(sample.length).toBeLessThanOrEqual(10);
    expect([...sample].sort(Buffer.compare)).toEqual(sample);
    const stored = new Set(keys.map((key) => key.toString()));
    expect(sample.every((key) => stored.has(key.toString()))).toBe(true);
  });
}

/** A read ends early, by its aborted `signal` or by its reader stopping, and the store goes on. */
import type { StoreRow } from "../store.js";
import { collect, everything, keysOf, text } from "./harness/rows.js";
import type { StoreTest, StoreTestCommon } from "./harness/test-common.js";

export function readEndingTests(test: StoreTest, { expect, filled, supports }: StoreTestCommon): void {
  if (supports.abortSignals) {
    test("ends a read with the abort reason when its signal aborts", async () => {
      const store = await filled(
        Array.from({ length: 100 }, (_, i) => text(`r${String(i).padStart(3, "0")}`)),
      );
      const controller = new AbortController();
      const seen: StoreRow[] = [];
      await expect(async () => {
        for await (const row of store.read(everything, { signal: controller.signal })) {
          seen.push(row);
          if (seen.length === 5) controller.abort();
        }
      }).rejects.toThrow(/abort/i);
      expect(seen.length).toBe(5);
      const aborted = AbortSignal.abort(new Error("already aborted"));
      await expect(collect(store.read(everything, { signal: aborted }))).rejects.toThrow("already aborted");
    });
  }

  test("lets a reader stop early and the store keep working", async () => {
    const store = await filled(["a", "b", "c"].map(text));
    for await (const row of store.read(everything)) {
      expect(row.key.toString()).toBe("a");
      break;
    }
    expect(await keysOf(store.read(everything))).toHaveLength(3);
  });
}

import { describe, expect, it } from "vitest";
import { describeStoreBehaviour } from "../../entry/store-testing.js";
import { RetryableStoreError, type StoreRow } from "../store.js";
import { MemoryStore } from "./memory.js";

describeStoreBehaviour({ describe, it, expect }, "memory", async () => new MemoryStore(), {
  openFailingWrites: async (failingKeys) =>
    new MemoryStore({
      faults: {
        failWrite: (key) => (failingKeys.some((bad) => bad.equals(key)) ? "injected failure" : undefined),
      },
    }),
});

describe("MemoryStore faults", () => {
  const rows = (store: MemoryStore) => store.read([{ start: Buffer.alloc(0), end: null }]);
  const fill = async (store: MemoryStore) =>
    store.write(
      ["a", "b", "c", "d"].map((key) => ({
        type: "put",
        key: Buffer.from(key),
        cells: new Map([["v", Buffer.from(key)]]),
      })),
    );

  it("breaks the next read streams after the given rows, then reads normally", async () => {
    const store = new MemoryStore({ faults: { failRead: { afterRows: 2, streams: 1 } } });
    await fill(store);
    const seen: StoreRow[] = [];
    await expect(async () => {
      for await (const row of rows(store)) seen.push(row);
    }).rejects.toBeInstanceOf(RetryableStoreError);
    expect(seen.map((row) => row.key.toString())).toEqual(["a", "b"]);
    const again: string[] = [];
    for await (const row of rows(store)) again.push(row.key.toString());
    expect(again).toEqual(["a", "b", "c", "d"]);
  });

  it("returns copies, so callers cannot change stored rows", async () => {
    const store = new MemoryStore();
    await fill(store);
    const row = await store.get(Buffer.from("a"));
    row?.cells.get("v")?.fill(0);
    expect((await store.get(Buffer.from("a")))?.cells.get("v")?.toString()).toBe("a");
  });

  it("refuses use after close", async () => {
    const store = new MemoryStore();
    await store.close();
    await expect(store.get(Buffer.from("a"))).rejects.toThrow(
      expect.objectContaining({ name: "StoreClosedError", store: store.name }),
    );
  });
});

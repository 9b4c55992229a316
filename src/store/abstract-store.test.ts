import { describe, expect, it } from "vitest";
import {
  AbstractStore,
  type CheckedReadOptions,
  type CheckedRoutingOptions,
  type CheckedWriteOptions,
} from "./abstract-store.js";
import type { KeyRange, StoreMutation, StoreRow, StoreWriteResult } from "./store.js";

/** A third-party store as little as it can be: it records what reaches its own operations. */
class RecordingStore extends AbstractStore {
  readonly name = "recording";
  readonly calls: { operation: string; options?: unknown }[] = [];

  constructor(maxKeyBytes?: number) {
    super(maxKeyBytes);
  }

  protected async _write(
    _: readonly StoreMutation[],
    options: CheckedWriteOptions,
  ): Promise<StoreWriteResult> {
    this.calls.push({ operation: "write", options });
    return { failed: [] };
  }

  protected async _checkAndMutate(): Promise<boolean> {
    this.calls.push({ operation: "checkAndMutate" });
    return true;
  }

  protected async _get(_: Buffer, options: CheckedRoutingOptions): Promise<StoreRow | undefined> {
    this.calls.push({ operation: "get", options });
    return undefined;
  }

  protected _read(_: readonly KeyRange[], options: CheckedReadOptions): AsyncIterable<StoreRow> {
    this.calls.push({ operation: "read", options });
    return (async function* () {})();
  }

  protected async _sampleKeys(): Promise<Buffer[]> {
    this.calls.push({ operation: "sampleKeys" });
    return [];
  }

  async close(): Promise<void> {}
}

const key = Buffer.from("k");
const put: StoreMutation = { type: "put", key, cells: new Map([["v", key]]) };

describe("AbstractStore", () => {
  it("rejects bad arguments before the store's own operation sees them", async () => {
    const store = new RecordingStore();
    const refused = (field: string, value: unknown) =>
      expect.objectContaining({ name: "StoreArgumentError", field, value });
    const empty = Buffer.alloc(0);
    await expect(store.write([{ ...put, key: empty }])).rejects.toThrow(refused("mutations[0].key", empty));
    await expect(store.write([put], { appProfile: "bad profile" })).rejects.toThrow(
      refused("appProfile", "bad profile"),
    );
    await expect(store.checkAndMutate(put, { qualifier: "", equals: null })).rejects.toThrow(
      refused("condition.qualifier", ""),
    );
    await expect(store.get(empty)).rejects.toThrow(refused("key", empty));
    expect(() => store.read([{ start: key, end: Buffer.from("a") }])).toThrow(
      refused("ranges[0].start", key),
    );
    expect(() => store.read([], { limit: -1 })).toThrow(refused("limit", -1));
    await expect(store.sampleKeys(-1)).rejects.toThrow(refused("count", -1));
    expect(store.calls).toEqual([]);
  });

  it("hands its operations checked options, every flag decided", async () => {
    const store = new RecordingStore();
    await store.write([put], { durable: true, appProfile: "p" });
    await store.get(key);
    for await (const _ of store.read([{ start: key, end: null }], { cellTimestamps: true }));
    expect(store.calls).toEqual([
      { operation: "write", options: { appProfile: "p", durable: true, batchWriteFlowControl: false } },
      { operation: "get", options: { appProfile: undefined } },
      {
        operation: "read",
        options: {
          appProfile: undefined,
          limit: Number.POSITIVE_INFINITY,
          cellTimestamps: true,
          signal: undefined,
        },
      },
    ]);
  });

  it("holds keys to the store's own limit", async () => {
    const store = new RecordingStore(4);
    await expect(store.write([{ ...put, key: Buffer.from("12345") }])).rejects.toThrow(
      expect.objectContaining({ field: "mutations[0].key", allowed: "1..4 bytes" }),
    );
    await store.write([{ ...put, key: Buffer.from("1234") }]);
    expect(store.calls.map((call) => call.operation)).toEqual(["write"]);
  });
});

/**
 * The behaviour every Store must show, as a suite any test runner can run (the way abstract-level
 * ships its suite): a third-party `Store` passes it to be a drop-in for ours, and each of our stores
 * runs it from its own test file —
 * `describeStoreBehaviour({ describe, it, expect }, "memory", async () => new MemoryStore())`.
 * Published as `keyspread/store/testing`.
 */
import type { KeyRange, Store, StoreMutation, StoreRow } from "./store.js";

/** The assertions the suite makes; vitest's and Jest's `expect` provide them. */
export interface StoreAssertion {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toBeUndefined(): void;
  toHaveLength(length: number): void;
  toBeGreaterThan(value: number): void;
  toBeLessThanOrEqual(value: number): void;
  toThrow(expected?: string | RegExp): void;
  rejects: { toThrow(expected?: string | RegExp): Promise<void> };
}

/** The test runner's API the suite registers its tests with: vitest's or Jest's `describe`, `it` and `expect`. */
export interface StoreTestApi {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void>): void;
  expect(actual: unknown): StoreAssertion;
}

export interface StoreBehaviourOptions {
  /** Persistent stores: closes `store` and opens the same data again. */
  reopen?: (store: Store) => Promise<Store>;
  /** Largest key the store accepts (default Bigtable's 4096); longer keys must be rejected clearly. */
  maxKeyBytes?: number;
  /** Opens a store whose writes of these keys fail, to check failures are reported by index. */
  openFailingWrites?: (failingKeys: readonly Buffer[]) => Promise<Store>;
  /** The failing store refuses every write, not just the given keys (e.g. Bigtable, unknown family). */
  failingWritesAreAll?: boolean;
  /** Rows in the large-batch test (default 25 000). */
  largeBatchRows?: number;
}

const hex = (text: string): Buffer => Buffer.from(text, "hex");
const text = (value: string): Buffer => Buffer.from(value);
const cellsOf = (value: string): Map<string, Buffer> => new Map([["v", Buffer.from(value)]]);
const put = (key: Buffer, value = key.toString("hex")): StoreMutation => ({
  type: "put",
  key,
  cells: cellsOf(value),
});

async function collect(rows: AsyncIterable<StoreRow>): Promise<StoreRow[]> {
  const out: StoreRow[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

async function keysOf(rows: AsyncIterable<StoreRow>): Promise<string[]> {
  return (await collect(rows)).map((row) => row.key.toString("hex"));
}

const everything: KeyRange[] = [{ start: Buffer.alloc(0), end: null }];

/** Registers the suite: `open` gives a new, empty store for each test; every store it opened is closed after the test. */
export function describeStoreBehaviour(
  test: StoreTestApi,
  name: string,
  open: () => Promise<Store>,
  options: StoreBehaviourOptions = {},
): void {
  const { describe, expect } = test;
  describe(`Store behaviour: ${name}`, () => {
    const opened: Store[] = [];
    const it = (title: string, body: () => Promise<void>): void =>
      test.it(title, async () => {
        try {
          await body();
        } finally {
          await Promise.all(opened.splice(0).map((store) => store.close()));
        }
      });
    const fresh = async (): Promise<Store> => {
      const store = await open();
      opened.push(store);
      return store;
    };
    const filled = async (keys: Buffer[]): Promise<Store> => {
      const store = await fresh();
      expect((await store.write(keys.map((key) => put(key)))).failed).toEqual([]);
      return store;
    };

    it("orders keys as unsigned bytes, prefixes before their extensions", async () => {
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

    it("reads half-open ranges, with a null end meaning the end of the table", async () => {
      const store = await filled(["a", "b", "c", "d", "e"].map(text));
      const read = (start: string, end: string | null) =>
        keysOf(store.read([{ start: text(start), end: end === null ? null : text(end) }]));
      expect(await read("b", "d")).toEqual(["62", "63"]);
      expect(await read("bb", null)).toEqual(["63", "64", "65"]);
      expect(await read("c", "c")).toEqual([]);
      expect(await read("x", null)).toEqual([]);
      expect(await keysOf(store.read([]))).toEqual([]);
    });

    it("reads several ranges in order with one global limit", async () => {
      const store = await filled(["a1", "a2", "a3", "b1", "b2", "c1", "c2"].map(text));
      const ranges: KeyRange[] = [
        { start: text("a2"), end: text("b") },
        { start: text("b2"), end: text("c2") },
        { start: text("c2"), end: null },
      ];
      const decoded = async (limit?: number) =>
        (await collect(store.read(ranges, { limit }))).map((row) => row.key.toString());
      expect(await decoded()).toEqual(["a2", "a3", "b2", "c1", "c2"]);
      expect(await decoded(3)).toEqual(["a2", "a3", "b2"]);
      expect(await decoded(1)).toEqual(["a2"]);
      expect(await decoded(0)).toEqual([]);
    });

    it("stops a limited read after the limit even when the table goes on", async () => {
      const keys = Array.from({ length: 2_000 }, (_, i) => text(`k${String(i).padStart(5, "0")}`));
      const store = await filled(keys);
      const iterator = store.read(everything, { limit: 10 })[Symbol.asyncIterator]();
      const seen: string[] = [];
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        seen.push(next.value.key.toString());
      }
      expect(seen).toEqual(keys.slice(0, 10).map(String));
    });

    it("rejects unsorted or overlapping ranges and bad limits", async () => {
      const store = await fresh();
      const bad: KeyRange[] = [
        { start: text("b"), end: text("c") },
        { start: text("a"), end: text("b") },
      ];
      expect(() => store.read(bad)).toThrow(/ranges\[0\].*sorted/);
      expect(() =>
        store.read([
          { start: text("a"), end: null },
          { start: text("b"), end: null },
        ]),
      ).toThrow(/sorted/);
      expect(() => store.read(everything, { limit: -1 })).toThrow(/limit/);
    });

    it("sets only the cells a put names, replaces on request, deletes rows, and misses absent keys", async () => {
      const store = await fresh();
      const cells = (entries: Record<string, string>) =>
        new Map(Object.entries(entries).map(([name, value]) => [name, text(value)]));
      await store.write([{ type: "put", key: text("k"), cells: cells({ a: "1", b: "2" }) }]);
      await store.write([{ type: "put", key: text("k"), cells: cells({ a: "3" }) }]);
      expect((await store.get(text("k")))?.cells).toEqual(cells({ a: "3", b: "2" }));
      await store.write([{ type: "put", key: text("k"), cells: cells({ c: "4" }), replace: true }]);
      expect((await store.get(text("k")))?.cells).toEqual(cells({ c: "4" }));
      await store.write([put(text("gone")), { type: "delete", key: text("gone") }]);
      expect(await store.get(text("gone"))).toBeUndefined();
      expect(await store.get(text("never"))).toBeUndefined();
      expect(await store.write([])).toEqual({ failed: [] });
      await store.write([{ type: "delete", key: text("never") }]);
      expect(await keysOf(store.read(everything))).toEqual([text("k").toString("hex")]);
    });

    it("deletes named cells, and the row with its last cell", async () => {
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

    it("applies the mutations of one batch to one row in order", async () => {
      const store = await fresh();
      const key = hex("00ff00");
      const one = (cells: Record<string, string>, replace?: boolean): StoreMutation => ({
        type: "put",
        key,
        cells: new Map(Object.entries(cells).map(([name, value]) => [name, text(value)])),
        ...(replace === undefined ? {} : { replace }),
      });
      expect((await store.write([one({ a: "1" }), one({ b: "2" }), one({ a: "3" })])).failed).toEqual([]);
      expect((await store.get(key))?.cells).toEqual(
        new Map([
          ["a", text("3")],
          ["b", text("2")],
        ]),
      );
      await store.write([one({ c: "4" }), one({ d: "5" }, true), one({ e: "6" })]);
      expect((await store.get(key))?.cells).toEqual(
        new Map([
          ["d", text("5")],
          ["e", text("6")],
        ]),
      );
      await store.write([one({ f: "7" }), { type: "delete", key }, one({ g: "8" })]);
      expect((await store.get(key))?.cells).toEqual(new Map([["g", text("8")]]));
      await store.write([one({ h: "9" }), { type: "delete", key }]);
      expect(await store.get(key)).toBeUndefined();
    });

    it("keeps rows that are prefixes of each other apart through every mutation", async () => {
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

    it("accepts an app profile per operation and rejects a malformed one by name", async () => {
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

    it("round-trips binary keys and values that are not UTF-8", async () => {
      const store = await fresh();
      const key = hex("ff00fe80c0c1f5f8fffe00");
      const value = hex("80ff00c3288d");
      // 8-byte values: the Bigtable client turns them into numbers unless undone.
      const cells = new Map([
        ["bin", value],
        ["q:x#1", hex("00")],
        ["eight", hex("ffffffffffffff80")],
        ["eight+", hex("0000000000000001")],
        ["wide", hex("8000000000000000")],
        ["empty", Buffer.alloc(0)],
      ]);
      await store.write([{ type: "put", key, cells }]);
      const row = await store.get(key);
      expect(row?.key.equals(key)).toBe(true);
      expect(row?.cells).toEqual(cells);
      const [scanned] = await collect(store.read([{ start: hex("ff00fe"), end: hex("ff00ff") }]));
      expect(scanned?.key.equals(key)).toBe(true);
    });

    it("accepts keys up to its limit and rejects longer ones clearly", async () => {
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

    it("applies a large batch completely", async () => {
      const count = options.largeBatchRows ?? 25_000;
      const store = await fresh();
      const keys = Array.from({ length: count }, (_, i) => {
        const key = Buffer.alloc(8);
        key.writeUInt32BE((i * 2_654_435_761) >>> 0, 0); // scattered, not in write order
        key.writeUInt32BE(i, 4);
        return key;
      });
      expect((await store.write(keys.map((key) => put(key, "x".repeat(20))))).failed).toEqual([]);
      const rows = await collect(store.read(everything));
      expect(rows.length).toBe(count);
      const sorted = [...keys].sort(Buffer.compare);
      expect(rows.every((row, i) => row.key.equals(sorted[i]!))).toBe(true);
    });

    it("ends a read with the abort reason when its signal aborts", async () => {
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

    it("lets a reader stop early and the store keep working", async () => {
      const store = await filled(["a", "b", "c"].map(text));
      for await (const row of store.read(everything)) {
        expect(row.key.toString()).toBe("a");
        break;
      }
      expect(await keysOf(store.read(everything))).toHaveLength(3);
    });

    it("samples sorted keys of the table", async () => {
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

    if (options.reopen !== undefined) {
      const reopen = options.reopen;
      it("keeps its rows across close and reopen", async () => {
        const store = await fresh();
        await store.write([put(hex("0102")), put(hex("ff"), "last"), put(hex("00"))]);
        opened.splice(opened.indexOf(store), 1);
        const again = await reopen(store);
        opened.push(again);
        expect(await keysOf(again.read(everything))).toEqual(["00", "0102", "ff"]);
        expect((await again.get(hex("ff")))?.cells.get("v")?.toString()).toBe("last");
      });
    }

    if (options.openFailingWrites !== undefined) {
      const openFailing = options.openFailingWrites;
      it("reports each failed mutation by index, with its reason, and applies the rest", async () => {
        const failing = [text("bad1"), text("bad2")];
        const store = await openFailing(failing);
        opened.push(store);
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
  });
}

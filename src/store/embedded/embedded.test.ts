import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import fc from "fast-check";
import { afterAll, describe, expect, it, vi } from "vitest";
import { describeStoreBehaviour } from "../../entry/store-testing.js";
import { mountSmallFilesystem } from "../../io/small-filesystem.testsuite.js";
import { MemoryStore } from "../memory/memory.js";
import type { KeyRange, Store, StoreMutation, StoreRow } from "../store.js";
import { EmbeddedStore } from "./embedded.js";

const directory = await mkdtemp(join(tmpdir(), "keyspread-embedded-"));
afterAll(() => rm(directory, { recursive: true, force: true }));

let tables = 0;
describeStoreBehaviour(
  { describe, it, expect },
  "embedded",
  () => EmbeddedStore.open({ directory, table: `t${tables++}` }),
  {
    reopen: async (store: Store) => {
      const { location } = store as EmbeddedStore;
      await store.close();
      return EmbeddedStore.open({ directory, table: location.split("/").pop()! });
    },
  },
);

describe("EmbeddedStore", () => {
  it("names its location and rejects table names that are not plain", async () => {
    const store = await EmbeddedStore.open({ directory, table: "named" });
    expect(store.name).toBe(`embedded:${join(directory, "named")}`);
    await store.close();
    await expect(EmbeddedStore.open({ directory, table: "../escape" })).rejects.toThrow(
      expect.objectContaining({ name: "StoreArgumentError", field: "table", value: "../escape" }),
    );
  });

  it("refuses a missing table when it must exist, creating nothing", async () => {
    const empty = await mkdtemp(join(tmpdir(), "keyspread-missing-"));
    await expect(EmbeddedStore.open({ directory: empty, table: "typo", mustExist: true })).rejects.toThrow(
      expect.objectContaining({ name: "MissingEmbeddedTableError", location: join(empty, "typo") }),
    );
    expect(await readdir(empty)).toEqual([]);
  });

  it("says clearly when the table is already open", async () => {
    const store = await EmbeddedStore.open({ directory, table: "locked" });
    await expect(EmbeddedStore.open({ directory, table: "locked" })).rejects.toThrow(
      expect.objectContaining({ name: "EmbeddedOpenError", location: store.location, locked: true }),
    );
    await store.close();
  });

  it("reports every mutation of a batch the engine refused, none dropped", async () => {
    const store = await EmbeddedStore.open({ directory, table: "refused" });
    await store.close();
    const key = (i: number) => Buffer.from(`k${i}`);
    const batch = [0, 1, 2].map((i) => ({
      type: "put" as const,
      key: key(i),
      cells: new Map([["v", key(i)]]),
    }));
    const { failed } = await store.write(batch);
    expect(failed.map((failure) => failure.index)).toEqual([0, 1, 2]);
    // The store's name, then LevelDB's own reason.
    expect(new Set(failed.map((failure) => failure.reason))).toEqual(
      new Set([`${store.name}: Database is not open`]),
    );
  });

  it("syncs LevelDB's log for a durable write, and only then", async () => {
    const store = await EmbeddedStore.open({ directory, table: "durable" });
    const syncs: unknown[] = [];
    const batch = vi.spyOn(ClassicLevel.prototype, "batch");
    batch.mockImplementation(function (this: ClassicLevel<Buffer, Buffer>, ...args: unknown[]) {
      const real = Object.getPrototypeOf(ClassicLevel.prototype).batch.apply(this, args);
      const write = real.write.bind(real);
      real.write = (options?: { sync?: boolean }) => {
        syncs.push(options?.sync ?? false);
        return write(options);
      };
      return real;
    } as never);
    try {
      const put = (key: string) => [
        { type: "put" as const, key: Buffer.from(key), cells: new Map([["v", Buffer.from("1")]]) },
      ];
      await store.write(put("a"));
      await store.write(put("b"), { durable: true });
    } finally {
      batch.mockRestore();
    }
    expect(syncs).toEqual([false, true]);
    expect((await store.get(Buffer.from("b")))?.cells.get("v")?.toString()).toBe("1");
    await store.close();
  });
});

describe("EmbeddedStore on a disk that fills up", () => {
  const rows = (from: number, count: number, bytes: number): StoreMutation[] =>
    Array.from({ length: count }, (_, i) => ({
      type: "put" as const,
      key: Buffer.from(`row-${String(from + i).padStart(6, "0")}`),
      cells: new Map([["v", Buffer.alloc(bytes, (from + i) % 251)]]),
    }));

  it("keeps every durable write that succeeded after one a full disk cut short, across a reopen", async (ctx) => {
    const disk = await mountSmallFilesystem(16 * 1024 * 1024);
    if (typeof disk === "string") return ctx.skip(disk);
    try {
      const store = await EmbeddedStore.open({ directory: disk.path, table: "t" });
      expect((await store.write(rows(0, 10, 1000), { durable: true })).failed).toEqual([]);
      await disk.fill(64 * 1024);
      // LevelDB's log writer gets part of this 1 MB batch onto the disk, then ENOSPC.
      const cut = await store.write(rows(10, 100, 10_000), { durable: true });
      expect(cut.failed).toHaveLength(100);
      expect((await store.write(rows(10, 100, 10_000), { durable: true })).failed).toHaveLength(100);
      await disk.free();
      for (let from = 10; from < 210; from += 100) {
        expect((await store.write(rows(from, 100, 10_000), { durable: true })).failed).toEqual([]);
      }
      await store.close();
      const reopened = await EmbeddedStore.open({ directory: disk.path, table: "t" });
      let stored = 0;
      for await (const row of reopened.read([{ start: Buffer.alloc(0), end: null }])) {
        expect(row.cells.get("v")?.[0]).toBe(Number(row.key.toString().slice(4)) % 251);
        stored++;
      }
      await reopened.close();
      expect(stored).toBe(210);
    } finally {
      await disk.unmount();
    }
  });
});

describe("EmbeddedStore's one entry per cell", () => {
  const rowsOf = async (store: Store, ranges: KeyRange[], limit?: number) => {
    const rows: string[] = [];
    for await (const row of store.read(ranges, { limit })) rows.push(describeRow(row));
    return rows;
  };
  const describeRow = (row: StoreRow) =>
    `${row.key.toString("hex")}:${[...row.cells]
      .map(([q, v]) => `${q}=${v.toString("hex")}`)
      .sort()
      .join(",")}`;

  // Keys over 00, 01 and ff exercise the escaping (00 → 00 ff) and rows that prefix each other.
  const key = fc
    .uint8Array({ minLength: 1, maxLength: 3 })
    .map((bytes) => Buffer.from(bytes.map((b) => [0x00, 0x01, 0xff][b % 3]!)));
  const qualifiers = fc.uniqueArray(fc.constantFrom("a", "b", "\u0000", "é"), { minLength: 1, maxLength: 3 });
  const mutation: fc.Arbitrary<StoreMutation> = fc.oneof(
    fc.record({
      type: fc.constant("put" as const),
      key,
      cells: qualifiers.chain((names) =>
        fc
          .tuple(...names.map(() => fc.uint8Array({ maxLength: 2 })))
          .map((values) => new Map(names.map((name, i) => [name, Buffer.from(values[i]!)]))),
      ),
      replace: fc.boolean(),
    }),
    fc.record({ type: fc.constant("delete" as const), key }),
    fc.record({ type: fc.constant("delete" as const), key, qualifiers }),
  );

  it("reads back what the in-memory model holds after any mutations", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(mutation, { maxLength: 8 }), { maxLength: 5 }),
        key,
        key,
        fc.nat({ max: 4 }),
        async (batches, a, b, limit) => {
          const embedded = await EmbeddedStore.open({ directory, table: `model${run++}` });
          const model = new MemoryStore();
          try {
            for (const batch of batches) {
              await embedded.write(batch);
              await model.write(batch);
            }
            const everything: KeyRange[] = [{ start: Buffer.alloc(0), end: null }];
            expect(await rowsOf(embedded, everything)).toEqual(await rowsOf(model, everything));
            const [start, end] = Buffer.compare(a, b) <= 0 ? [a, b] : [b, a];
            const range: KeyRange[] = [{ start, end }];
            expect(await rowsOf(embedded, range, limit)).toEqual(await rowsOf(model, range, limit));
            const got = await embedded.get(a);
            const expected = await model.get(a);
            expect(got && describeRow(got)).toEqual(expected && describeRow(expected));
            expect((await embedded.sampleKeys(100)).map((k) => k.toString("hex"))).toEqual(
              (await model.sampleKeys(100)).map((k) => k.toString("hex")),
            );
          } finally {
            await embedded.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("refuses a directory written in the earlier one-entry-per-row format, changing nothing", async () => {
    const location = join(directory, "row-format");
    const old = new ClassicLevel<Buffer, Buffer>(location, {
      keyEncoding: "buffer",
      valueEncoding: "buffer",
    });
    await old.put(Buffer.from("dev-1#9"), Buffer.from([1, 1, 0x76, 1, 0x31]));
    await old.close();
    await expect(EmbeddedStore.open({ directory, table: "row-format" })).rejects.toThrow(
      expect.objectContaining({ name: "EmbeddedFormatError", location, found: null, expected: "cells-1" }),
    );
    const again = new ClassicLevel<Buffer, Buffer>(location, {
      keyEncoding: "buffer",
      valueEncoding: "buffer",
    });
    expect((await again.keys().all()).map((k) => k.toString())).toEqual(["dev-1#9"]);
    await again.close();
  });

  it("keeps its format entry out of reads and samples", async () => {
    const store = await EmbeddedStore.open({ directory, table: "format-entry" });
    await store.write([{ type: "put", key: Buffer.from([0]), cells: new Map([["v", Buffer.from("x")]]) }]);
    expect(await rowsOf(store, [{ start: Buffer.alloc(0), end: null }])).toEqual(["00:v=78"]);
    expect(await store.sampleKeys(10)).toEqual([Buffer.from([0])]);
    await store.close();
    const reopened = await EmbeddedStore.open({ directory, table: "format-entry" });
    expect((await reopened.get(Buffer.from([0])))?.cells.get("v")?.toString()).toBe("x");
    await reopened.close();
  });
});

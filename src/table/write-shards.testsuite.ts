/**
 * A write-sharded table's behaviour, the same on every store: writes pick a shard, reads of the
 * logical row merge its shards, deletes name every shard and nothing else.
 */
import { expect, it } from "vitest";
import { compileSchema } from "../keys/schema.js";
import type { SchemaSpec } from "../keys/types.js";
import type { Store, StoreRow } from "../store/store.js";
import { SaltedTable, type SaltedTableOptions, sumInt64Cells } from "./salted-table.js";
import { RESERVED_PREFIX } from "./schema-guard.js";

export const COUNTERS: SchemaSpec = {
  version: 1,
  name: "counters",
  layout: "text",
  segments: [
    { field: "tenant", codec: { type: "string" } },
    { field: "counter", codec: { type: "string" } },
  ],
  salt: { buckets: 4, fields: ["tenant"] },
  writeShards: { count: 4, entities: [{ tenant: "hot" }] },
};
const schema = compileSchema(COUNTERS);

/** A celebrity's feed, newest first: every post a row of its own, each on one of 3 shards. */
const FEED: SchemaSpec = {
  version: 1,
  name: "feed",
  layout: "text",
  segments: [
    { field: "user", codec: { type: "string" } },
    { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
  ],
  writeShards: { count: 3, entities: [{ user: "celebrity" }] },
};

export function int64(value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigInt64BE(BigInt(value));
  return bytes;
}

/** Shards 0, 1, 2, … in turn, so a test knows where each write went. */
export function inTurn(): SaltedTableOptions["chooseShard"] {
  let next = 0;
  return (count) => next++ % count;
}

async function physicalRows(store: Store): Promise<StoreRow[]> {
  const rows: StoreRow[] = [];
  for await (const row of store.read([{ start: Buffer.alloc(0), end: RESERVED_PREFIX }])) rows.push(row);
  return rows;
}

/** Registers the sharded-table tests on stores made by `open` (a fresh, empty table each call). */
export function shardedTableBehaviour(open: () => Promise<Store>): void {
  async function openTable(options: SaltedTableOptions = {}): Promise<{ table: SaltedTable; store: Store }> {
    const store = await open();
    return {
      table: await SaltedTable.open(store, schema, { create: true, chooseShard: inTurn(), ...options }),
      store,
    };
  }

  it("writes of a hot row go to its shards; get, scan and latest return one merged logical row", async () => {
    const { table, store } = await openTable({ mergeShards: sumInt64Cells });
    try {
      // Each shard keeps its part of the count: 1, 2, 3 and 4.
      for (let i = 1; i <= 4; i++) await table.put({ tenant: "hot", counter: "views" }, { n: int64(i) });
      await table.put({ tenant: "hot", counter: "views" }, { label: "front page" });
      await table.put({ tenant: "cold", counter: "views" }, { n: int64(3) });

      const physical = await physicalRows(store);
      expect(physical.map((row) => schema.decode(row.key).shard).sort()).toEqual([0, 1, 2, 3, undefined]);
      const hot = await table.get({ tenant: "hot", counter: "views" });
      expect(hot?.values).toEqual({ tenant: "hot", counter: "views" });
      expect(hot?.cells.get("n")?.readBigInt64BE()).toBe(10n);
      expect(hot?.cells.get("label")?.toString()).toBe("front page");

      const scan = table.scan({ eq: { tenant: "hot" } });
      const rows = await scan.toArray();
      expect(rows.map((row) => row.values)).toEqual([{ tenant: "hot", counter: "views" }]);
      // The logical row's key: a shard's key without its "#0".."#3" suffix.
      expect(rows[0]!.key).toEqual(schema.encode({ tenant: "hot", counter: "views" }, 0).subarray(0, -2));
      expect({ scanned: scan.report.rowsScanned, returned: scan.report.rowsReturned }).toEqual({
        scanned: 4,
        returned: 1,
      });
      expect(scan.report.plan.shardsPerRow).toBe(4);
      const all = await table.scan({}).toArray();
      expect(all.map((row) => row.values.tenant).sort()).toEqual(["cold", "hot"]);
    } finally {
      await store.close();
    }
  });

  it("latest returns the newest logical rows of a sharded entity, limits counted in logical rows", async () => {
    const store = await open();
    try {
      const table = await SaltedTable.open(store, compileSchema(FEED), {
        create: true,
        chooseShard: inTurn(),
      });
      for (let ts = 1; ts <= 5; ts++) await table.put({ user: "celebrity", ts }, { text: `post ${ts}` });
      await table.put({ user: "celebrity", ts: 5 }, { likes: "7" });
      const latest = await table.latest({ eq: { user: "celebrity" } }, 2);
      expect(latest.map((row) => [row.values.ts, [...row.cells.keys()]])).toEqual([
        [5, ["likes", "text"]],
        [4, ["text"]],
      ]);
    } finally {
      await store.close();
    }
  });

  it("a column the shards disagree on fails the read by default, naming the row and column", async () => {
    const { table, store } = await openTable();
    try {
      await table.put({ tenant: "hot", counter: "c" }, { n: "1" });
      await table.put({ tenant: "hot", counter: "c" }, { n: "2" });
      await expect(table.get({ tenant: "hot", counter: "c" })).rejects.toMatchObject({
        name: "ShardMergeError",
        column: "n",
        shards: 2,
      });
    } finally {
      await store.close();
    }
  });

  it("delete removes every shard of the logical row and no other row", async () => {
    const { table, store } = await openTable();
    try {
      for (let i = 0; i < 4; i++) await table.put({ tenant: "hot", counter: "a" }, { [`c${i}`]: "x" });
      await table.put({ tenant: "hot", counter: "b" }, { c: "y" });
      await table.put({ tenant: "cold", counter: "a" }, { c: "z" });
      await table.delete({ tenant: "hot", counter: "a" });
      expect(await table.get({ tenant: "hot", counter: "a" })).toBeUndefined();
      const left = (await physicalRows(store)).map((row) => schema.decode(row.key).values);
      expect(left).toEqual(
        expect.arrayContaining([
          { tenant: "hot", counter: "b" },
          { tenant: "cold", counter: "a" },
        ]),
      );
      expect(left).toHaveLength(2);
    } finally {
      await store.close();
    }
  });

  it("replace makes the logical row exactly the cells written, emptying its other shards", async () => {
    const { table, store } = await openTable();
    try {
      await table.put({ tenant: "hot", counter: "a" }, { old: "1" });
      await table.put({ tenant: "hot", counter: "a" }, { older: "2" });
      await table.put({ tenant: "hot", counter: "a" }, { fresh: "3" }, { replace: true });
      const row = await table.get({ tenant: "hot", counter: "a" });
      expect([...(row?.cells.keys() ?? [])]).toEqual(["fresh"]);
      expect(await physicalRows(store)).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
}

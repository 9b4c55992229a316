import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BigtableStore } from "../store/bigtable/bigtable.js";
import { EmbeddedStore } from "../store/embedded/embedded.js";
import { MemoryStore } from "../store/memory/memory.js";
import type { KeyRange, Store } from "../store/store.js";
import { RESERVED_PREFIX } from "../table/schema-guard.js";
import { backfillTable } from "./backfill.js";
import { readBackfillCheckpoint } from "./checkpoint.js";
import { dataPages } from "./data-rows.js";
import { fillSource, MIGRATIONS } from "./fixtures.testsuite.js";
import { parseShard, type ShardPlan, shardPlanFor, shardRange, splitKeyspace } from "./shards.js";
import { validateMigration } from "./validate.js";
import { validateMigrationShard } from "./validate-shard.js";

const dir = mkdtempSync(join(tmpdir(), "keyspread-shards-"));
let files = 0;
const fileIn = (name: string) => join(dir, `${files++}-${name}`);

async function keysIn(store: Store, range: KeyRange): Promise<string[]> {
  const keys: string[] = [];
  for await (const page of dataPages(store, 500, range))
    keys.push(...page.map((row) => row.key.toString("hex")));
  return keys;
}

/** Every data key falls in exactly one shard, in order. */
async function expectPartition(store: Store, plan: ShardPlan): Promise<number[]> {
  const all = await keysIn(store, { start: Buffer.alloc(0), end: RESERVED_PREFIX });
  const perShard: string[][] = [];
  for (let index = 1; index <= plan.shards; index++) {
    perShard.push(await keysIn(store, shardRange(plan, { index, count: plan.shards })));
  }
  expect(perShard.flat()).toEqual(all);
  return perShard.map((keys) => keys.length);
}

describe("shards", () => {
  it("parses K/N and refuses anything else", () => {
    expect(parseShard("2/4")).toEqual({ index: 2, count: 4 });
    expect(parseShard("1/1")).toEqual({ index: 1, count: 1 });
    for (const bad of ["0/4", "5/4", "2", "a/b", "2/0", "-1/4", "1/20000"]) {
      expect(() => parseShard(bad)).toThrow(
        expect.objectContaining({ name: "MigrateOptionError", field: "shard", value: bad }),
      );
    }
  });

  it("cuts an embedded table (by key sampling) into balanced ranges that cover it exactly", async () => {
    const store = await EmbeddedStore.open({ directory: dir, table: "split" });
    const { from, row } = MIGRATIONS[0]!;
    await fillSource(store, from, row, 2000);
    const plan = await shardPlanFor(fileIn("plan.json"), store, 4);
    expect(plan).toMatchObject({ version: 1, table: store.name, shards: 4 });
    const counts = await expectPartition(store, plan);
    expect(counts.every((count) => count > 350 && count < 650)).toBe(true);
    await store.close();
  });

  it("cuts a Bigtable table (by SampleRowKeys) into ranges that cover it exactly", async () => {
    const store = await BigtableStore.createTable({
      tableId: `shards${process.pid}${Date.now().toString(36)}`,
    });
    const { from, row } = MIGRATIONS[1]!;
    await fillSource(store, from, row, 1500);
    const plan = await shardPlanFor(fileIn("plan.json"), store, 3);
    const counts = await expectPartition(store, plan);
    expect(counts.reduce((a, b) => a + b)).toBe(1500);
    await store.close();
  });

  it("writes the plan once: every process reads the same one; another table or count is refused", async () => {
    const store = new MemoryStore({ name: "p" });
    await fillSource(store, MIGRATIONS[0]!.from, MIGRATIONS[0]!.row, 300);
    const file = fileIn("plan.json");
    const plans = await Promise.all(Array.from({ length: 4 }, () => shardPlanFor(file, store, 4)));
    expect(new Set(plans.map((plan) => JSON.stringify(plan))).size).toBe(1);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(plans[0]);
    const planned = { table: "memory:p", shards: 4 };
    await expect(shardPlanFor(file, store, 8)).rejects.toMatchObject({
      name: "ShardPlanMismatch",
      file,
      planned,
      run: { table: "memory:p", shards: 8 },
    });
    await expect(shardPlanFor(file, new MemoryStore({ name: "q" }), 4)).rejects.toMatchObject({
      name: "ShardPlanMismatch",
      planned,
      run: { table: "memory:q", shards: 4 },
    });
    expect(() => shardRange(plans[0]!, { index: 1, count: 2 })).toThrow(/has 4 shards/);
  });

  it("gives an empty table's rows (none) to the first shard", async () => {
    const store = new MemoryStore();
    const splits = await splitKeyspace(store, 3);
    expect(splits).toEqual([RESERVED_PREFIX, RESERVED_PREFIX]);
  });
});

describe("sharded backfill and validation", () => {
  const { from, to, row } = MIGRATIONS[0]!;
  const ROWS = 1200;

  /** Every shard of `count` validated at once, each side cut by its own plan. */
  async function validateEveryShard(source: Store, target: Store, count: number) {
    const sourcePlan = await shardPlanFor(fileIn("source-plan.json"), source, count);
    const targetPlan = await shardPlanFor(fileIn("target-plan.json"), target, count);
    return Promise.all(
      Array.from({ length: count }, (_, i) =>
        validateMigrationShard({
          source,
          sourceSchema: from,
          target,
          targetSchema: to,
          shard: { index: i + 1, count },
          sourceRange: shardRange(sourcePlan, { index: i + 1, count }),
          targetRange: shardRange(targetPlan, { index: i + 1, count }),
        }),
      ),
    );
  }

  it("4 shards, each stopped mid-way and resumed from its own checkpoint, copy the table exactly", async () => {
    const source = new MemoryStore({ name: "old" });
    const target = new MemoryStore({ name: "new" });
    await fillSource(source, from, row, ROWS);
    const plan = await shardPlanFor(fileIn("plan.json"), source, 4);
    const checkpoints = [1, 2, 3, 4].map((index) => fileIn(`shard-${index}.json`));
    const shardOptions = (index: number) => ({
      source,
      sourceSchema: from,
      target,
      targetSchema: to,
      batchSize: 40,
      checkpointFile: checkpoints[index - 1]!,
      shard: { index, count: 4, range: shardRange(plan, { index, count: 4 }) },
    });
    // All four run at once and are stopped after their second batch.
    await Promise.all(
      [1, 2, 3, 4].map(async (index) => {
        const stop = new AbortController();
        let batches = 0;
        await expect(
          backfillTable({
            ...shardOptions(index),
            signal: stop.signal,
            onProgress: () => {
              if (++batches === 2) stop.abort();
            },
          }),
        ).rejects.toThrow();
        expect(await readBackfillCheckpoint(shardOptions(index).checkpointFile)).toMatchObject({
          rowsRead: 80,
          complete: false,
          shard: { index, count: 4 },
        });
      }),
    );
    // A shard's checkpoint does not resume another shard, nor an unsharded run.
    await expect(
      backfillTable({ ...shardOptions(2), checkpointFile: shardOptions(1).checkpointFile }),
    ).rejects.toMatchObject({
      name: "CheckpointMismatchError",
      field: "shard",
      recorded: expect.stringMatching(/^\{"index":1,/),
    });
    const results = await Promise.all([1, 2, 3, 4].map((index) => backfillTable(shardOptions(index))));
    expect(results.reduce((sum, r) => sum + r.rowsRead, 0)).toBe(ROWS);
    expect(results.every((r) => r.rowsReadThisRun === r.rowsRead - 80)).toBe(true);

    const whole = await validateMigration({ source, sourceSchema: from, target, targetSchema: to });
    expect(whole.differences).toEqual([]);
    expect(whole.target.rows).toBe(ROWS);
    const byShard = await validateEveryShard(source, target, 4);
    expect(byShard.map((r) => r.differences)).toEqual([[], [], [], []]);
    expect(byShard.reduce((sum, r) => sum + r.source.rows, 0)).toBe(ROWS);
    expect(byShard.reduce((sum, r) => sum + r.target.rows, 0)).toBe(ROWS);
  });

  it("names each row that differs, is missing, or only the target has", async () => {
    const source = new MemoryStore({ name: "old" });
    const target = new MemoryStore({ name: "new" });
    await fillSource(source, from, row, 200);
    await backfillTable({ source, sourceSchema: from, target, targetSchema: to });
    const at = (i: number) => to.encode(row(i).values);
    await target.write([
      { type: "put", key: at(3), cells: new Map([["value", Buffer.from("changed")]]) },
      { type: "delete", key: at(5) },
      {
        type: "put",
        key: to.encode({ deviceId: "extra", ts: 1 }),
        cells: new Map([["value", Buffer.from("x")]]),
      },
    ]);
    const reports = await validateEveryShard(source, target, 2);
    const differences = reports.flatMap((r) => r.differences);
    expect(differences.map((d) => `${d.kind}:${"side" in d ? d.side : ""}`).sort()).toEqual([
      "missing:source",
      "missing:target",
      "row:",
    ]);
    const changed = differences.find((d) => d.kind === "row");
    expect(changed).toMatchObject({
      sourceKey: from.encode(row(3).values).toString("hex"),
      targetKey: at(3).toString("hex"),
    });
    expect(reports.reduce((sum, r) => sum + r.differenceCount, 0)).toBe(3);
  });
});

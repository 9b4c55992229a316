import { describe, expect, it } from "vitest";
import { MemoryStore } from "../store/memory/memory.js";
import { SaltedTable } from "../table/salted-table.js";
import { backfillTable } from "./backfill.js";
import { DualWriteError, DualWriteTable } from "./dual-write.js";
import { MIGRATIONS } from "./fixtures.testsuite.js";
import { validateMigration } from "./validate.js";

const { from, to, row } = MIGRATIONS[0]!;

async function tables() {
  const oldStore = new MemoryStore({ name: "old" });
  const newStore = new MemoryStore({ name: "new" });
  const dual = new DualWriteTable(
    await SaltedTable.open(oldStore, from, { create: true }),
    await SaltedTable.open(newStore, to, { create: true }),
  );
  return { oldStore, newStore, dual };
}

describe("DualWriteTable", () => {
  it("writes every row to both tables under their own keys", async () => {
    const { dual } = await tables();
    expect(await dual.putMany([row(1), row(2), row(3)])).toEqual({ failed: [] });
    await dual.put(row(4).values, row(4).cells);
    for (const table of [dual.oldTable, dual.newTable]) {
      expect((await table.get(row(4).values))?.cells.get("value")?.toString()).toBe(row(4).cells.value);
      expect(await table.scan({}).toArray()).toHaveLength(4);
    }
    await dual.delete(row(4).values);
    expect(await dual.newTable.get(row(4).values)).toBeUndefined();
    expect(await dual.oldTable.get(row(4).values)).toBeUndefined();
  });

  it("reports rows one side failed, naming the side, while the other side keeps them", async () => {
    const { dual, newStore } = await tables();
    newStore.faults.failWrite = (key) => (key.includes("dev-2#") ? "new table throttled" : undefined);
    const result = await dual.putMany([row(1), row(2), row(3)]);
    expect(result.failed).toEqual([
      { side: "new", index: 1, values: row(2).values, reason: "new table throttled" },
    ]);
    expect(await dual.oldTable.get(row(2).values)).toBeDefined();
    await expect(dual.put(row(2).values, row(2).cells)).rejects.toMatchObject({
      name: "DualWriteError",
      sides: ["new"],
      failed: [{ side: "new", index: 0, reason: "new table throttled" }],
    });
  });

  it("turns a side that throws into failures for every row of the batch", async () => {
    const { dual, oldStore, newStore } = await tables();
    await oldStore.close();
    newStore.faults.failWrite = () => "down";
    const error = await dual.put(row(1).values, row(1).cells).catch((e) => e);
    expect(error).toBeInstanceOf(DualWriteError);
    expect(error.sides).toEqual(["old", "new"]);
    expect(error.failed.map((f: { side: string }) => f.side)).toEqual(["old", "new"]);
  });
});

describe("the migration window", () => {
  it("backfill while the app dual-writes new rows: validate finds no difference", async () => {
    const { oldStore, newStore, dual } = await tables();
    await dual.oldTable.putMany(Array.from({ length: 300 }, (_, i) => row(i)));
    const backfilled = backfillTable({
      source: oldStore,
      sourceSchema: from,
      target: newStore,
      targetSchema: to,
      batchSize: 25,
    });
    for (let i = 300; i < 400; i += 10) {
      const { failed } = await dual.putMany(Array.from({ length: 10 }, (_, j) => row(i + j)));
      expect(failed).toEqual([]);
    }
    await backfilled;
    const report = await validateMigration({
      source: oldStore,
      sourceSchema: from,
      target: newStore,
      targetSchema: to,
    });
    expect(report.differences).toEqual([]);
    expect(report.target.rows).toBe(400);
  });
});

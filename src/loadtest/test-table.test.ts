/**
 * The load test's table on Google's emulator: created the way the design says — at N split points
 * cutting the run's load into equal parts, at the salt's buckets, or as one tablet — as the
 * CreateTable request the emulator recorded shows; and an existing table holding others' rows
 * refused unless --reuse-table repeats its name.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileSchema } from "../keys/index.js";
import { parseScenario, type Scenario } from "../sim/scenario/scenario.js";
import { BigtableStore } from "../store/bigtable/bigtable.js";
import { createTableRequest } from "../store/bigtable/emulator-requests.testsuite.js";
import { readRun } from "./run-record.js";
import { scaleScenario } from "./scaled-scenario.js";
import {
  openTestTable,
  ReuseTableMismatchError,
  TableHoldsRowsError,
  testTableSplits,
} from "./test-table.js";

const fleet = parseScenario(readFileSync("examples/fleet-hotspot.yaml", "utf8"));
const withSplits = (splits: Scenario["tablets"]["splits"]): Scenario => ({
  ...fleet,
  tablets: { ...fleet.tablets, splits },
});
const unique = (name: string) => `${name}${process.pid}${Date.now().toString(36)}`;

async function created(scenario: Scenario, design: string) {
  const scaled = scaleScenario(scenario, design, 0.001, 1);
  const schema = compileSchema(scaled.design.schema);
  const tableId = unique("splits");
  const store = await openTestTable({ tableId }, schema, scaled, undefined);
  try {
    const keys = (createTableRequest(tableId).initialSplits ?? []).map((split) =>
      Buffer.from(split.key, "base64"),
    );
    return {
      keys,
      expected: testTableSplits(scaled, schema, Date.now()),
      createdTable: (await readRun(store))?.createdTable,
    };
  } finally {
    await store.deleteTable();
    await store.close();
  }
}

const prefix = (key: Buffer) => key.toString("latin1").split("#")[0];

describe("the load test's table, created as the design says (emulator)", () => {
  it("N split points: cut where the run's load is equal — most cuts inside the big customer's ids", async () => {
    const { keys, expected } = await created(withSplits(7), "as-is");
    expect(keys).toHaveLength(7);
    // The same cuts (a key's time part follows the clock the table was created at).
    expect(keys.map(prefix)).toEqual(expected.map(prefix));
    expect([...keys].sort(Buffer.compare)).toEqual(keys);
    // The fleet writes 62 % of the rows under one id prefix: equal parts put most cuts among its ids.
    expect(keys.filter((key) => key.toString("latin1").startsWith("acme-")).length).toBeGreaterThanOrEqual(4);
  }, 60_000);

  it("salt-buckets: one tablet per bucket; 0: one tablet", async () => {
    const salted = await created(withSplits("salt-buckets"), "salt-16-by-deviceID+ts");
    expect(salted.keys.map((key) => key.toString("latin1"))).toEqual(
      Array.from({ length: 15 }, (_, index) => `${String(index + 1).padStart(2, "0")}#`),
    );
    const single = await created(withSplits(0), "as-is");
    expect(single.keys).toEqual([]);
  }, 60_000);

  it("a design's own splits win over the scenario's", () => {
    const scenario: Scenario = {
      ...withSplits(0),
      designs: fleet.designs.map((design) => (design.name === "as-is" ? { ...design, splits: 3 } : design)),
    };
    const scaled = scaleScenario(scenario, "as-is", 0.001, 1);
    expect(testTableSplits(scaled, compileSchema(scaled.design.schema), Date.now())).toHaveLength(3);
  });

  it("refuses an existing table holding others' rows unless --reuse-table repeats its name", async () => {
    const scaled = scaleScenario(fleet, "as-is", 0.001, 1);
    const schema = compileSchema(scaled.design.schema);
    const tableId = unique("foreign");
    const store = await BigtableStore.createTable({ tableId });
    const theirs = Buffer.from("someone-else#row");
    await store.write([{ type: "put", key: theirs, cells: new Map([["v", Buffer.from("keep me")]]) }]);
    try {
      await expect(openTestTable({ tableId }, schema, scaled, undefined)).rejects.toThrow(
        expect.objectContaining({ name: TableHoldsRowsError.name, key: theirs }),
      );
      const mismatch = await openTestTable({ tableId }, schema, scaled, "other").catch(
        (error: unknown) => error,
      );
      expect(mismatch).toBeInstanceOf(ReuseTableMismatchError);
      expect(mismatch).toMatchObject({ field: "--reuse-table", value: "other", table: tableId });
      const reused = await openTestTable({ tableId }, schema, scaled, tableId);
      await reused.close();
      // Neither refusal nor the reuse wrote anything (the run is opened later, by the task).
      expect(await readRun(store)).toBeUndefined();
    } finally {
      await store.deleteTable();
      await store.close();
    }
  }, 60_000);
});

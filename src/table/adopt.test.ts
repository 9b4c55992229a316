import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileSchema, parseSchema } from "../keys/schema.js";
import { MemoryStore } from "../store/memory/memory.js";
import type { StoreMutation } from "../store/store.js";
import { AdoptRefusedError, adoptTable } from "./adopt.js";
import { SaltedTable } from "./salted-table.js";
import {
  MissingSchemaRowError,
  RESERVED_PREFIX,
  SchemaMismatchError,
  UnadoptedTableError,
} from "./schema-guard.js";

// A table written by the farm-sensor recipe itself (keys from the vectors of the recipe run as
// written), then adopted with the schema that reproduces it.
const SENSORS = parseSchema(readFileSync("examples/schemas/farm-sensors.yaml", "utf8"));
const RECIPE_KEYS: string[] = readFileSync("src/keys/fixtures/farm-sensor-keys.jsonl", "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => JSON.parse(line).key);

const put = (key: string | Buffer): StoreMutation => ({
  type: "put",
  key: Buffer.isBuffer(key) ? key : Buffer.from(key),
  cells: new Map([["reading", Buffer.from("21.5")]]),
});

async function recipeTable(foreign: string[] = []) {
  const store = new MemoryStore({ name: "sensors" });
  await store.write([...RECIPE_KEYS, ...foreign].map(put));
  return store;
}

describe("adoptTable", () => {
  it("checks a sample of an existing table's keys, records the schema, and the table reads", async () => {
    const store = await recipeTable();
    const missing = await SaltedTable.open(store, SENSORS).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(MissingSchemaRowError);
    expect(missing).toMatchObject({ table: "memory:sensors" });
    expect(missing).toMatchObject({ name: "MissingSchemaRowError", table: "memory:sensors" });
    await expect(SaltedTable.open(store, SENSORS, { create: true })).rejects.toThrow(UnadoptedTableError);
    await expect(SaltedTable.open(store, SENSORS, { create: true })).rejects.toMatchObject({
      name: "UnadoptedTableError",
      table: "memory:sensors",
    });
    const report = await adoptTable(store, SENSORS);
    expect(report).toMatchObject({
      table: "memory:sensors",
      fingerprint: SENSORS.fingerprint,
      alreadyAdopted: false,
      sampledRows: RECIPE_KEYS.length,
      undecodableRows: 0,
    });
    const table = await SaltedTable.open(store, SENSORS);
    const rows = await table.scan({ eq: { farm_id: "0042", sensor_id: "12" } }).toArray();
    expect(rows.map((row) => row.key.toString())).toEqual(["42_farm_0042_sensor_12_20240315080000"]);
    expect(await adoptTable(store, SENSORS)).toMatchObject({ alreadyAdopted: true, sampledRows: 0 });
    const other = compileSchema({ ...SENSORS.spec, salt: { ...SENSORS.spec.salt!, buckets: 100 } });
    await expect(adoptTable(store, other)).rejects.toThrow(SchemaMismatchError);
  });

  it("samples rows spread over a large table, not just its first rows", async () => {
    const store = new MemoryStore({ name: "large" });
    const keys = Array.from({ length: 20_000 }, (_, i) => `k${String(i).padStart(6, "0")}`);
    await store.write(keys.map(put));
    const schema = compileSchema({
      version: 1,
      name: "k",
      layout: "text",
      segments: [{ field: "k", codec: { type: "string", raw: true } }],
    });
    const seen: string[] = [];
    const reading = {
      ...store,
      name: store.name,
      get: store.get.bind(store),
      write: store.write.bind(store),
      checkAndMutate: store.checkAndMutate.bind(store),
      sampleKeys: store.sampleKeys.bind(store),
      close: store.close.bind(store),
      read: (...args: Parameters<MemoryStore["read"]>) => {
        seen.push(args[0][0]!.start.toString());
        return store.read(...args);
      },
    };
    const report = await adoptTable(reading, schema, { sampleRows: 330 });
    // Runs of ⌈330 / points⌉ rows from each sampled point (the run before the first key is empty).
    expect(report.sampledRows).toBeGreaterThanOrEqual(300);
    expect(report.sampledRows).toBeLessThanOrEqual(330);
    expect(seen.filter((start) => start.startsWith("k0")).length).toBeGreaterThan(1);
    expect(seen.some((start) => start >= "k019")).toBe(true);
  });

  it("refuses a table whose sampled keys do not decode beyond the threshold, unless forced", async () => {
    const bad = ["07_farm_x", "99_farm_0001_sensor_1_2024", "zz", "13_farm_a_sensor_b_c_d"];
    const store = await recipeTable(bad);
    const refused = await adoptTable(store, SENSORS).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AdoptRefusedError);
    expect(refused).toMatchObject({
      refusal: { problem: "undecodable-share", share: 4 / 250, allowed: 0.01 },
      report: {
        table: "memory:sensors",
        fingerprint: SENSORS.fingerprint,
        sampledRows: 250,
        undecodableRows: 4,
      },
    });
    const [first] = (refused as AdoptRefusedError).report.undecodable;
    expect(Buffer.from(first?.key ?? "", "hex").toString()).toBe("07_farm_x");
    expect(first?.reason).toEqual(expect.any(String));
    expect((refused as AdoptRefusedError).report.undecodable.map((row) => row.key)).toHaveLength(4);
    await expect(SaltedTable.open(store, SENSORS)).rejects.toBeInstanceOf(MissingSchemaRowError);
    expect(await adoptTable(store, SENSORS, { maxUndecodableShare: 0.02 })).toMatchObject({
      undecodableRows: 4,
    });
    const forced = await recipeTable(bad);
    expect(await adoptTable(forced, SENSORS, { force: true, maxUndecodableShare: 0 })).toMatchObject({
      undecodableRows: 4,
    });
    const warnings: string[] = [];
    const table = await SaltedTable.open(forced, SENSORS, { onWarning: (w) => warnings.push(w.message) });
    expect(await table.scan({}).toArray()).toHaveLength(RECIPE_KEYS.length);
    expect(warnings).toHaveLength(1);
  });

  it("refuses a table with keys in keyspread's reserved range", async () => {
    const store = await recipeTable();
    await store.write([put(Buffer.concat([RESERVED_PREFIX, Buffer.from("theirs")]))]);
    await expect(adoptTable(store, SENSORS)).rejects.toThrow(
      expect.objectContaining({
        name: "AdoptRefusedError",
        refusal: {
          problem: "reserved-key",
          key: Buffer.concat([RESERVED_PREFIX, Buffer.from("theirs")]).toString("hex"),
        },
      }),
    );
  });

  it("adopts an empty table as create would", async () => {
    const store = new MemoryStore();
    expect(await adoptTable(store, SENSORS)).toMatchObject({ sampledRows: 0, undecodableRows: 0 });
    await SaltedTable.open(store, SENSORS);
    await expect(adoptTable(store, SENSORS, { sampleRows: 0 })).rejects.toThrow(
      expect.objectContaining({ name: "TableOptionError", option: "sampleRows", value: 0 }),
    );
  });
});

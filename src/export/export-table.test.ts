import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import { compileSchema } from "../keys/schema.js";
import { MemoryStore } from "../store/memory/memory.js";
import { openStore } from "../store/open/open.js";
import { SaltedTable } from "../table/salted-table.js";
import { parseCellColumn } from "./columns.js";
import { ExportRowError, exportTable } from "./export-table.js";

const fleet = compileSchema({
  version: 1,
  name: "fleet",
  layout: "text",
  segments: [
    { field: "deviceId", codec: { type: "string" } },
    { field: "seq", codec: { type: "uint", width: 6 } },
    { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
  ],
  salt: { buckets: 8, fields: ["deviceId"] },
});
const DAY = 86_400_000;
const START = Date.UTC(2026, 10, 1);

async function fleetTable() {
  const store = new MemoryStore({ name: "fleet" });
  const table = await SaltedTable.open(store, fleet, { create: true });
  // 3 devices × 4 days × 6 points a day.
  await table.putMany(
    Array.from({ length: 72 }, (_, i) => ({
      values: { deviceId: `d${i % 3}`, seq: i, ts: START + Math.floor(i / 18) * DAY + (i % 18) * 60_000 },
      cells: { value: String(i / 2), unit: "%", raw: Buffer.from([0xff, 0x00]) },
    })),
  );
  return store;
}

async function query(sql: string) {
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJson();
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe("exportTable", () => {
  it("skips rows the schema cannot decode, counts them and warns; strict fails naming the row", async () => {
    const store = await fleetTable();
    const bucket = fleet.bucketOf({ deviceId: "d1" });
    const foreign = Buffer.from(`${bucket}#d1#not-a-number`);
    await store.write([{ type: "put", key: foreign, cells: new Map([["value", Buffer.from("1")]]) }]);
    const warnings: string[] = [];
    const result = await exportTable({
      store,
      schema: fleet,
      duckdbFile: join(mkdtempSync(join(tmpdir(), "keyspread-export-")), "f.duckdb"),
      onWarning: (warning) => warnings.push(warning.message),
    });
    expect(result).toMatchObject({ rows: 72, rowsUndecodable: 1 });
    expect(warnings).toEqual([
      expect.stringMatching(/^memory:fleet: skipped 1 row\(s\) .*"\d#d1#not-a-number"/),
    ]);
    await expect(
      exportTable({
        store,
        schema: fleet,
        duckdbFile: join(mkdtempSync(join(tmpdir(), "keyspread-export-")), "f.duckdb"),
        strict: true,
      }),
    ).rejects.toMatchObject({
      name: "UndecodableRowError",
      table: "memory:fleet",
      key: expect.toSatisfy((key: Buffer) => /^\d#d1#not-a-number$/.test(key.toString())),
      schema: "fleet",
    });
  });

  it("writes Parquet partitioned by day with typed key columns, typed and JSON cells", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "keyspread-export-")), "fleet");
    const result = await exportTable({
      store: await fleetTable(),
      schema: fleet,
      parquetDir: dir,
      cellColumns: [parseCellColumn("value:double")],
    });
    expect(result).toMatchObject({ rows: 72, partitionedBy: "ts", days: 4, parquetDir: dir, duckdb: null });
    expect(readdirSync(dir).sort()).toEqual([
      "day=2026-11-01",
      "day=2026-11-02",
      "day=2026-11-03",
      "day=2026-11-04",
    ]);
    const glob = `read_parquet('${dir}/**/*.parquet', hive_partitioning = true)`;
    const [types] = await query(
      `SELECT typeof(deviceId) AS d, typeof(seq) AS s, typeof(ts) AS t, typeof(value) AS v, typeof(cells) AS c FROM ${glob} LIMIT 1`,
    );
    expect(types).toEqual({ d: "VARCHAR", s: "UBIGINT", t: "TIMESTAMP", v: "DOUBLE", c: "JSON" });
    const [row] = await query(`SELECT deviceId, seq, ts, value, cells, day FROM ${glob} WHERE seq = 20`);
    expect(row).toEqual({
      deviceId: "d2",
      seq: "20",
      ts: "2026-11-02 00:02:00",
      value: 10,
      cells: JSON.stringify({ unit: "%", raw: { hex: "ff00" } }),
      day: "2026-11-02",
    });
  });

  it("exports a key range into a DuckDB database file", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "keyspread-export-")), "fleet.duckdb");
    const result = await exportTable({
      store: await fleetTable(),
      schema: fleet,
      query: { eq: { deviceId: "d1" }, range: { field: "seq", lt: 30 } },
      duckdbFile: file,
      tableName: "metrics",
    });
    expect(result).toMatchObject({ rows: 10, duckdb: { file, table: "metrics" }, parquetDir: null });
    const instance = await DuckDBInstance.create(file);
    const connection = await instance.connect();
    try {
      const rows = (
        await connection.runAndReadAll(
          "SELECT min(seq) AS lo, max(seq) AS hi, count(DISTINCT deviceId) AS n FROM metrics",
        )
      ).getRowObjectsJson();
      expect(rows).toEqual([{ lo: "1", hi: "28", n: "1" }]);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });

  it("exports from Cloud Bigtable (the emulator) the same way", async () => {
    const store = await openStore("bigtable", {
      table: `export-${process.pid}-${Date.now().toString(36)}`,
      create: true,
    });
    try {
      const table = await SaltedTable.open(store, fleet, { create: true });
      await table.putMany(
        Array.from({ length: 20 }, (_, i) => ({
          values: { deviceId: `d${i % 2}`, seq: i, ts: START + i * DAY },
          cells: { value: String(i) },
        })),
      );
      const dir = mkdtempSync(join(tmpdir(), "keyspread-export-"));
      const result = await exportTable({
        store,
        schema: fleet,
        parquetDir: dir,
        cellColumns: [parseCellColumn("value:BIGINT")],
      });
      expect(result).toMatchObject({ rows: 20, days: 20 });
      expect(await query(`SELECT sum(value) AS total FROM read_parquet('${dir}/**/*.parquet')`)).toEqual([
        { total: "190" },
      ]);
    } finally {
      await store.close();
    }
  });

  it("refuses a schema other than the one the table records, instead of exporting nothing", async () => {
    const other = compileSchema({ ...fleet.spec, salt: { buckets: 4, fields: ["deviceId"] } });
    await expect(
      exportTable({
        store: await fleetTable(),
        schema: other,
        parquetDir: mkdtempSync(join(tmpdir(), "ks-x-")),
      }),
    ).rejects.toMatchObject({
      name: "SchemaMismatchError",
      differences: [{ path: "salt.buckets", table: 8, schema: 4 }],
    });
  });

  it("refuses a Parquet directory that already holds files, so old partitions never mix in", async () => {
    const parquetDir = mkdtempSync(join(tmpdir(), "ks-full-"));
    await exportTable({ store: await fleetTable(), schema: fleet, parquetDir });
    await expect(exportTable({ store: await fleetTable(), schema: fleet, parquetDir })).rejects.toMatchObject(
      {
        name: "ExportDirectoryError",
        directory: parquetDir,
      },
    );
  });

  it("names the cell and the row when a typed cell does not parse", async () => {
    const refused = await exportTable({
      store: await fleetTable(),
      schema: fleet,
      duckdbFile: join(mkdtempSync(join(tmpdir(), "keyspread-export-")), "x.duckdb"),
      cellColumns: [parseCellColumn("unit:DOUBLE")],
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ExportRowError);
    expect((refused as ExportRowError).key).toMatch(/^[0-9a-f]+$/);
    expect((refused as ExportRowError).cause).toMatchObject({
      name: "CellValueError",
      cell: "unit",
      value: "%",
      type: "DOUBLE",
    });
    expect(() => parseCellColumn("value:FLOAT")).toThrow(
      expect.objectContaining({
        name: "CellColumnError",
        value: "value:FLOAT",
        problem: "unknown-type",
        allowed: ["DOUBLE", "BIGINT", "VARCHAR", "BOOLEAN"],
      }),
    );
    await expect(
      exportTable({ store: new MemoryStore(), schema: fleet, parquetDir: "x", partitionField: "seq" }),
    ).rejects.toMatchObject({ name: "PartitionFieldError", field: "seq", schema: "fleet", allowed: ["ts"] });
  });
});

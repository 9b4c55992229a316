import { describe, expect, it } from "vitest";
import { MemoryStore } from "../store/memory/memory.js";
import { SaltedTable } from "../table/salted-table.js";
import { backfillTable } from "./backfill.js";
import { fillSource, MIGRATIONS } from "./fixtures.testsuite.js";
import { validateMigration } from "./validate.js";

const { from, to, row } = MIGRATIONS[0]!;

async function migrated(rows: number) {
  const source = new MemoryStore({ name: "old" });
  const target = new MemoryStore({ name: "new" });
  await fillSource(source, from, row, rows);
  await backfillTable({ source, sourceSchema: from, target, targetSchema: to });
  return { source, target, newTable: await SaltedTable.open(target, to) };
}

describe("validate", () => {
  it("names the range and the entity where a cell changed", async () => {
    const { source, target, newTable } = await migrated(70);
    await newTable.put(row(3).values, { value: "changed" });
    const report = await validateMigration({
      source,
      sourceSchema: from,
      target,
      targetSchema: to,
      sampleEntities: 50,
    });
    expect(report.source.rows).toBe(70);
    expect(report.target.rows).toBe(70);
    const kinds = report.differences.map((d) => d.kind);
    expect(kinds.filter((k) => k === "range")).toHaveLength(1);
    const range = report.differences.find((d) => d.kind === "range")!;
    expect(range).toMatchObject({ field: "deviceId", source: { rows: expect.any(Number) } });
    // Every entity of 7 devices is sampled from 70 rows, so dev-3 is compared and differs.
    expect(report.entities).toEqual({ fields: ["deviceId"], compared: 7, rowsPerEntity: 100 });
    expect(report.differences.find((d) => d.kind === "entity")).toMatchObject({
      entity: { deviceId: "dev-3" },
      source: expect.stringContaining("value="),
      target: expect.stringContaining(`value=${Buffer.from("changed").toString("base64")}`),
    });
  });

  it("counts a missing row and an extra row, and the latest-N position where they differ", async () => {
    const { source, target, newTable } = await migrated(70);
    await newTable.delete(row(69).values); // dev-6's newest row
    await newTable.put({ deviceId: "dev-new", ts: 1 }, { value: "1" });
    const report = await validateMigration({
      source,
      sourceSchema: from,
      target,
      targetSchema: to,
      ranges: 1,
    });
    expect(report.ranges).toHaveLength(1);
    expect(report.target.rows).toBe(70);
    expect(report.differences.find((d) => d.kind === "range")).toMatchObject({
      source: { rows: 70 },
      target: { rows: 70 },
    });
    expect(report.target.checksum).not.toBe(report.source.checksum);
    expect(report.differences.find((d) => d.kind === "entity")).toMatchObject({
      entity: { deviceId: "dev-6" },
      index: 0,
    });
  });

  it("reports rows the target schema cannot decode", async () => {
    const { source, target } = await migrated(10);
    await target.write([
      { type: "put", key: Buffer.from("not-a-salted-key"), cells: new Map([["v", Buffer.from("1")]]) },
    ]);
    const report = await validateMigration({
      source,
      sourceSchema: from,
      target,
      targetSchema: to,
      sampleEntities: 0,
    });
    expect(report.differences).toEqual([
      expect.objectContaining({
        kind: "undecodable",
        side: "target",
        key: Buffer.from("not-a-salted-key").toString("hex"),
      }),
    ]);
    expect(report.target).toMatchObject({ rows: 10, undecodable: 1 });
    expect(report.source).toMatchObject({ rows: 10, undecodable: 0 });
  });

  it("refuses entity fields that do not lead both schemas", async () => {
    const { source, target } = await migrated(5);
    await expect(
      validateMigration({ source, sourceSchema: from, target, targetSchema: to, entityFields: ["ts"] }),
    ).rejects.toMatchObject({
      name: "MigrateOptionError",
      field: "entityFields",
      value: ["ts"],
      allowed: `leading fields of both schemas ("metrics" starts with ${from.fields.map((f) => f.name).join(", ")})`,
    });
  });
});

/**
 * The entity reader printed for DuckDB returns exactly the rows `table scan` returns for the same
 * entity: the fleet's (xxHash32: every bucket's prefix), the seed's md5 recipes (the salt
 * computed in SQL, farm-sensors through its salt.input template) and escaped ids that need
 * escaping ("#", "$", NUL).
 */
import { DuckDBInstance } from "@duckdb/node-api";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FieldValues, KeySchema } from "../keys/types.js";
import { MemoryStore } from "../store/memory/memory.js";
import { SaltedTable } from "../table/salted-table.js";
import { duckDb } from "./duckdb-dialect.js";
import { entityReader } from "./entity-reader.js";
import { decodingPlan } from "./plan.js";
import { exampleSchemas, syntheticSchemas, text, valuesOf } from "./sql-schemas.fixture.js";

let instance: DuckDBInstance;
beforeAll(async () => {
  instance = await DuckDBInstance.create(":memory:");
});
afterAll(() => instance.closeSync());

const ROWS = 240;
const ENTITIES = 6;

const cases = [...exampleSchemas(), ...syntheticSchemas().filter((s) => s.spec.name === "text_every_codec")];

describe("entity reader on DuckDB", () => {
  it.each(cases.map((schema) => [schema.spec.name, schema] as const))(
    "%s: the rows table scan returns",
    async (_name, schema) => {
      const plan = decodingPlan(schema, { cells: [{ name: "value", type: "DOUBLE" }] });
      const source = {
        from: "rows",
        rowKey: "rowkey",
        cell: (name: string) => `TRY_CAST("${name}" AS DOUBLE)`,
      };
      const reader = entityReader(schema, plan, duckDb, source, "entity");
      if ("refused" in reader) throw new Error(reader.refused.message);

      // A few entities, each written under many other field values.
      const separator = schema.spec.separator ?? "#";
      const rawEntity = schema.fields.some(
        (f) => reader.fields.includes(f.name) && f.codec.type === "string" && f.codec.raw,
      );
      const entityPool = fc.sample(
        fc.record(
          Object.fromEntries(
            reader.fields.map((field) => [
              field,
              rawEntity ? text(separator) : fc.oneof(text(), fc.constant("a#b$c\u0000")),
            ]),
          ),
        ),
        { numRuns: ENTITIES, seed: 7 },
      ) as FieldValues[];
      const rows = fc
        .sample(valuesOf(schema), { numRuns: ROWS, seed: 9 })
        .map((values, i) => ({ ...values, ...entityPool[i % ENTITIES] }));
      const table = await SaltedTable.open(new MemoryStore(), schema as KeySchema, { create: true });
      for (const [i, values] of rows.entries()) await table.put(values, { value: String(i / 2) });

      const connection = await instance.connect();
      try {
        await connection.run("CREATE OR REPLACE TABLE rows (rowkey VARCHAR, value VARCHAR)");
        const appender = await connection.createAppender("rows");
        for (const row of await table.scan({}).toArray()) {
          appender.appendVarchar(row.key.toString("utf8"));
          appender.appendVarchar(row.cells.get("value")!.toString("utf8"));
          appender.endRow();
        }
        appender.closeSync();
        await connection.run(reader.sql);
        for (const entity of entityPool) {
          const values = reader.fields.map((field) => entity[field] as string);
          const placeholders = values.map((_, i) => `$${i + 1}`).join(", ");
          const result = await connection.runAndReadAll(
            `SELECT rowkey, value FROM entity(${placeholders}) ORDER BY rowkey`,
            values,
          );
          const scanned = await table.scan({ eq: entity }).toArray();
          const want = scanned
            .map((row) => [row.key.toString("utf8"), Number(row.cells.get("value")!.toString("utf8"))])
            .sort(([a], [b]) => Buffer.compare(Buffer.from(a as string), Buffer.from(b as string)));
          expect(want.length).toBeGreaterThan(0);
          expect(result.getRows(), JSON.stringify(entity)).toEqual(want);
        }
      } finally {
        connection.closeSync();
      }
    },
    60_000,
  );
});

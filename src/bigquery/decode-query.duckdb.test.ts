/**
 * The DuckDB printing of every plan, run on ≥ 10,000 random keys per schema in one query each,
 * must decode every key exactly as keyspread's decoder does (`keys decode`), and leave out only
 * keys whose timestamp lies beyond DuckDB's TIMESTAMP range.
 */

import { isUtf8 } from "node:buffer";
import { DuckDBInstance } from "@duckdb/node-api";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodecSpec, FieldValue, KeySchema } from "../keys/types.js";
import { decodeQuery } from "./decode-query.js";
import { duckDb } from "./duckdb-dialect.js";
import { decodingPlan } from "./plan.js";
import { DUCKDB_MAX_US, exampleSchemas, MICROS, syntheticSchemas, valuesOf } from "./sql-schemas.fixture.js";

const KEYS_PER_SCHEMA = 10_000;

let instance: DuckDBInstance;
beforeAll(async () => {
  instance = await DuckDBInstance.create(":memory:");
});
afterAll(() => instance.closeSync());

/** A decoded value as the query prints it: text, integers in decimal, timestamps in µs. */
function expected(codec: CodecSpec, value: FieldValue): string {
  if (codec.type === "timestamp") return String(BigInt(value as number | bigint) * MICROS[codec.unit]);
  return String(value);
}

const inDuckDbRange = (schema: KeySchema, values: Record<string, FieldValue>) =>
  schema.fields.every(
    (f) =>
      f.codec.type !== "timestamp" ||
      BigInt(values[f.name] as number) * MICROS[f.codec.unit] <= DUCKDB_MAX_US,
  );

/** The UTC day of a timestamp field as DuckDB prints a DATE (years past 9999 included). */
function dayOf(schema: KeySchema, field: string, values: Record<string, FieldValue>): string {
  const codec = schema.fields.find((f) => f.name === field)!.codec as { unit: keyof typeof MICROS };
  const days = (BigInt(values[field] as number) * MICROS[codec.unit]) / 86_400_000_000n;
  // Howard Hinnant's civil_from_days, in bigint (JavaScript's Date ends in the year 275760).
  const z = days + 719468n;
  const era = (z >= 0n ? z : z - 146096n) / 146097n;
  const doe = z - era * 146097n;
  const yoe = (doe - doe / 1460n + doe / 36524n - doe / 146096n) / 365n;
  const doy = doe - (365n * yoe + yoe / 4n - yoe / 100n);
  const mp = (5n * doy + 2n) / 153n;
  const day = doy - (153n * mp + 2n) / 5n + 1n;
  const month = mp < 10n ? mp + 3n : mp - 9n;
  const year = yoe + era * 400n + (month <= 2n ? 1n : 0n);
  const pad = (n: bigint, width: number) => String(n).padStart(width, "0");
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
}

const schemas = [...exampleSchemas(), ...syntheticSchemas()];

describe("DuckDB decodes every key as keyspread does", () => {
  it("covers the fleet's schema and every codec in both layouts", () => {
    const names = schemas.map((s) => s.spec.name);
    expect(names).toContain("fleet");
    const codecs = new Set(schemas.flatMap((s) => s.fields.map((f) => `${s.spec.layout}:${f.codec.type}`)));
    for (const layout of ["text", "binary"])
      for (const type of ["string", "uint", "int64", "timestamp", "reverse-domain", "enum"])
        expect(codecs, `${layout}:${type}`).toContain(`${layout}:${type}`);
  });

  it.each(schemas.map((schema) => [schema.spec.name, schema] as const))(
    "%s: 10,000 random keys",
    async (_name, schema) => {
      const keys = fc
        .sample(valuesOf(schema), { numRuns: KEYS_PER_SCHEMA, seed: 40 })
        .map((values) => schema.encode(values));
      expect(keys.length).toBeGreaterThanOrEqual(KEYS_PER_SCHEMA);
      const { mismatches, left, decodedRows } = await compare(schema, keys);
      expect(mismatches.slice(0, 5)).toEqual([]);
      expect(decodedRows).toBe(keys.length - left);
      expect(left).toBeLessThan(keys.length / 5);
    },
    120_000,
  );

  it.each(schemas.map((schema) => [schema.spec.name, schema] as const))(
    "%s: damaged keys are left out unless keyspread decodes them too",
    async (_name, schema) => {
      const valid = fc.sample(valuesOf(schema), { numRuns: 500, seed: 41 }).map((v) => schema.encode(v));
      const damage = fc.tuple(
        fc.nat(),
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        fc.integer({ min: 0, max: 3 }),
      );
      const keys = fc.sample(damage, { numRuns: 3000, seed: 42 }).flatMap(([which, at, byte, how]) => {
        const key = valid[which % valid.length]!;
        const pos = at % (key.length + 1);
        const damaged =
          how === 0
            ? Buffer.concat([key.subarray(0, pos), Buffer.of(byte), key.subarray(pos + 1)])
            : how === 1
              ? key.subarray(0, pos)
              : how === 2
                ? Buffer.concat([key.subarray(0, pos), Buffer.of(byte), key.subarray(pos)])
                : Buffer.concat([
                    key.subarray(0, pos),
                    Buffer.from(schema.spec.separator ?? "\u0000"),
                    key.subarray(pos),
                  ]);
        // A text key must stay UTF-8 text to be a STRING row key at all.
        return schema.spec.layout === "text" && !isUtf8(damaged) ? [] : [damaged];
      });
      const { mismatches, refused } = await compare(schema, keys);
      expect(mismatches.slice(0, 5)).toEqual([]);
      expect(refused).toBeGreaterThan(keys.length / 10);
    },
    120_000,
  );
});

/**
 * Runs the DuckDB view over `keys` and compares each with keyspread's decoder: a key it decodes
 * must come out with the same values (or be left out, beyond DuckDB's TIMESTAMP range); a key it
 * refuses must be left out, except one refused only for its salt, which SQL does not check.
 */
async function compare(schema: KeySchema, keys: readonly Buffer[]) {
  const plan = decodingPlan(schema);
  const connection = await instance.connect();
  try {
    const keyType = plan.rowKey === "string" ? "VARCHAR" : "BLOB";
    await connection.run(`CREATE OR REPLACE TABLE rows (i INTEGER, rowkey ${keyType})`);
    const appender = await connection.createAppender("rows");
    keys.forEach((key, i) => {
      appender.appendInteger(i);
      if (plan.rowKey === "string") appender.appendVarchar(key.toString("utf8"));
      else appender.appendBlob(key);
      appender.endRow();
    });
    appender.closeSync();

    const query = decodeQuery(plan, duckDb, {
      from: "rows",
      rowKey: "rowkey",
      cell: () => "NULL",
      keep: ["i"],
    });
    const printed = schema.fields.map((f) =>
      f.codec.type === "timestamp"
        ? `CAST(epoch_us("${f.name}") AS VARCHAR)`
        : `CAST("${f.name}" AS VARCHAR)`,
    );
    const bucket = plan.salt ? `CAST(bucket AS VARCHAR)` : `'0'`;
    const day = plan.dayField ? `CAST(day AS VARCHAR)` : `''`;
    const reader = await connection.runAndReadAll(
      `SELECT i, ${bucket}, ${day}, ${printed.join(", ")} FROM (${query}) ORDER BY i`,
    );
    const actual = new Map(reader.getRows().map((row) => [Number(row[0]), row.slice(1).map(String)]));

    const mismatches: string[] = [];
    let left = 0;
    let refused = 0;
    keys.forEach((key, i) => {
      const row = actual.get(i);
      let decoded: ReturnType<KeySchema["decode"]>;
      try {
        decoded = schema.decode(key);
      } catch (error) {
        refused++;
        const saltOnly = /salt says bucket/.test((error as Error).message);
        if (row !== undefined && !saltOnly)
          mismatches.push(
            `${key.toString("hex")}: keyspread refuses it (${(error as Error).message}) yet SQL decoded it`,
          );
        return;
      }
      if (!inDuckDbRange(schema, decoded.values)) {
        left++;
        if (row !== undefined) mismatches.push(`${key.toString("hex")}: beyond DuckDB's range yet decoded`);
        return;
      }
      const want = [
        String(decoded.bucket),
        plan.dayField ? dayOf(schema, plan.dayField, decoded.values) : "",
        ...schema.fields.map((f) => expected(f.codec, decoded.values[f.name]!)),
      ];
      if (row === undefined) mismatches.push(`${key.toString("hex")}: left out`);
      else if (JSON.stringify(row) !== JSON.stringify(want))
        mismatches.push(`${key.toString("hex")}: ${JSON.stringify(row)} ≠ ${JSON.stringify(want)}`);
    });
    return { mismatches, left, refused, decodedRows: actual.size };
  } finally {
    connection.closeSync();
  }
}

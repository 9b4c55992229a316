import { describe, expect, it } from "vitest";
import { compileSchema } from "../keys/schema.js";
import type { KeySchema, SchemaSpec } from "../keys/types.js";
import { bigQueryArtifacts } from "./artifacts.js";
import { decodingPlan, SqlDecodeError } from "./plan.js";

const schema = (spec: Omit<SchemaSpec, "version">) =>
  compileSchema({ version: 1, ...spec } as SchemaSpec) as KeySchema;
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SqlDecodeError);
    return (error as Error).message;
  }
  throw new Error("not refused");
};

describe("decoding plan refusals", () => {
  it("refuses write shards: only some rows carry the suffix", () => {
    const sharded = schema({
      name: "counters",
      layout: "text",
      segments: [{ field: "counterId", codec: { type: "string" } }],
      writeShards: { count: 4 },
    });
    expect(refusal(() => decodingPlan(sharded))).toMatch(/writeShards/);
  });

  it("refuses a one-raw-byte salt in front of a text key, naming the hash", () => {
    const phoenix = schema({
      name: "p",
      layout: "text",
      segments: [{ field: "id", codec: { type: "string" } }],
      salt: { buckets: 8, hash: "phoenix" },
    });
    expect(refusal(() => decodingPlan(phoenix))).toMatch(/"phoenix".*raw byte/);
  });

  it("refuses a day field that is not a timestamp and a cell that clashes with a column", () => {
    const fleet = schema({
      name: "f",
      layout: "text",
      segments: [
        { field: "id", codec: { type: "string" } },
        { field: "ts", codec: { type: "timestamp", unit: "ms" } },
      ],
    });
    expect(refusal(() => decodingPlan(fleet, { dayField: "id" }))).toMatch(/allowed: ts/);
    expect(refusal(() => decodingPlan(fleet, { cells: [{ name: "id", type: "DOUBLE" }] }))).toMatch(
      /clashes/,
    );
    expect(refusal(() => decodingPlan(fleet, { cells: [{ name: "a-b", type: "DOUBLE" }] }))).toMatch(
      /column name/,
    );
  });

  it("says why an entity reader or a row key schema cannot be written", () => {
    const binary = schema({
      name: "b",
      layout: "binary",
      segments: [
        { field: "id", codec: { type: "uint", bytes: 4 } },
        { field: "ts", codec: { type: "timestamp", unit: "ms" } },
      ],
      salt: { buckets: 4 },
    });
    const artifacts = bigQueryArtifacts(binary, {
      table: { project: "p", instance: "i", table: "b", family: "m" },
      dataset: "d",
    });
    expect(Object.keys(artifacts.refused).sort()).toEqual(["entity.sql", "row-key-schema.json"]);
    expect(artifacts.refused["row-key-schema.json"]).toMatch(/binary layout/);
    expect(artifacts.files["view.sql"]).toContain("REGEXP_EXTRACT");
    expect(JSON.parse(artifacts.files["external-table.json"]!).bigtableOptions.readRowkeyAsString).toBe(
      false,
    );

    const wide = schema({
      name: "w",
      layout: "text",
      segments: [{ field: "id", codec: { type: "string" } }],
      salt: { buckets: 1000 },
    });
    const refused = bigQueryArtifacts(wide, {
      table: { project: "p", instance: "i", table: "w", family: "m" },
      dataset: "d",
    }).refused;
    expect(refused["entity.sql"]).toMatch(/"xxh32" has no SQL function.*1000 buckets/);
  });
});

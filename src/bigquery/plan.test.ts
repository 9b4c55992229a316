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
    return error as SqlDecodeError;
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
    expect(refusal(() => decodingPlan(sharded))).toMatchObject({ problem: "write-shards" });
  });

  it("refuses a one-raw-byte salt in front of a text key, naming the hash", () => {
    const phoenix = schema({
      name: "p",
      layout: "text",
      segments: [{ field: "id", codec: { type: "string" } }],
      salt: { buckets: 8, hash: "phoenix" },
    });
    expect(refusal(() => decodingPlan(phoenix))).toMatchObject({
      problem: "raw-byte-salt",
      subject: "phoenix",
    });
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
    expect(refusal(() => decodingPlan(fleet, { dayField: "id" }))).toMatchObject({
      problem: "not-a-timestamp",
      subject: "id",
    });
    expect(refusal(() => decodingPlan(fleet, { cells: [{ name: "id", type: "DOUBLE" }] }))).toMatchObject({
      problem: "column-clash",
      subject: "id",
    });
    expect(refusal(() => decodingPlan(fleet, { cells: [{ name: "a-b", type: "DOUBLE" }] }))).toMatchObject({
      problem: "bad-column-name",
      subject: "a-b",
    });
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
    expect(artifacts.refused).toMatchObject({
      "entity.sql": { problems: ["binary-layout"] },
      "row-key-schema.json": { problems: ["binary-layout"] },
    });
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
    expect(refused["entity.sql"]).toMatchObject({ problems: ["too-many-buckets"] });
  });
});

import { describe, expect, it } from "vitest";
import { compileSchema } from "../keys/schema.js";
import type { KeySchema, SchemaSpec } from "../keys/types.js";
import { rowKeySchemaFor } from "./row-key-schema.js";
import { exampleSchemas } from "./sql-schemas.fixture.js";

const schema = (spec: Omit<SchemaSpec, "version">) =>
  compileSchema({ version: 1, ...spec } as SchemaSpec) as KeySchema;
const examples = new Map(exampleSchemas().map((s) => [s.spec.name, s]));

describe("row key schema", () => {
  it("fits the fleet's key: the salt and every field as a delimited STRING", () => {
    const fit = rowKeySchemaFor(examples.get("fleet")!, "m");
    expect(fit.fits).toBe(true);
    if (!fit.fits) return;
    expect(fit.struct.fields.map((f) => f.fieldName)).toEqual(["bucket", "deviceId", "metric", "ts"]);
    expect(fit.struct.encoding.delimitedBytes.delimiter).toEqual(Buffer.from("#"));
  });

  it('does not fit the seed\'s recipes: digits below the "_" delimiter, raw strings', () => {
    for (const name of ["game-studio-md5", "farm-sensors"]) {
      const fit = rowKeySchemaFor(examples.get(name)!, "m");
      expect(fit.fits).toBe(false);
      if (fit.fits) continue;
      // The salt's digits (no field) sort below "_".
      const salt = fit.reasons.find((r) => r.problem === "digits-below-delimiter" && r.field === undefined);
      expect(salt).toBeDefined();
      expect(fit.reasons).toContainEqual(expect.objectContaining({ problem: "raw-string" }));
    }
  });

  it("says why for a string that may hold the separator, write shards and a family clash", () => {
    const underscore = schema({
      name: "u",
      layout: "text",
      separator: "_",
      segments: [{ field: "name", codec: { type: "string" } }],
    });
    const fit = rowKeySchemaFor(underscore, "m");
    expect(fit.fits || fit.reasons).toEqual([
      expect.objectContaining({ problem: "digits-below-delimiter", field: "name" }),
    ]);

    const clash = schema({
      name: "c",
      layout: "text",
      segments: [{ field: "m", codec: { type: "string" } }],
    });
    const clashFit = rowKeySchemaFor(clash, "m");
    expect(clashFit.fits || clashFit.reasons).toEqual([
      expect.objectContaining({ problem: "name-collision", field: "m" }),
    ]);
  });
});

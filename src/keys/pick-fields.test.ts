import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FieldValueError } from "./errors.js";
import { valuesFromJson } from "./json.js";
import { pickFields } from "./pick-fields.js";
import { parseSchema } from "./schema.js";

const fleet = parseSchema(readFileSync("examples/schemas/fleet.yaml", "utf8"));
const key = { deviceId: "d1", metric: "cpu", ts: 1_700_000_000_000 };

function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error("did not throw");
}

describe("unknown fields", () => {
  it("encode and bucketOf reject a field the schema does not have, as the CLI's JSON input does", () => {
    const wide = { ...key, extra: 1 };
    const fromLibrary = thrown(() => fleet.encode(wide));
    const fromJson = thrown(() => valuesFromJson(fleet, wide));
    expect(fromLibrary).toBeInstanceOf(FieldValueError);
    expect(fromLibrary).toMatchObject({ field: "extra" });
    expect(fromLibrary).toEqual(fromJson);
    expect(thrown(() => fleet.bucketOf({ deviceId: "d1", extra: 1 }))).toMatchObject({ field: "extra" });
  });

  it("names a misspelt field rather than reporting its correct name missing", () => {
    expect(thrown(() => fleet.encode({ deviceId: "d1", metrik: "cpu", ts: 1 }))).toMatchObject({
      field: "metrik",
    });
  });

  it("pickFields keeps the schema's fields of a wider row, so encode takes it", () => {
    const reading = { ...key, value: 0.93, unit: "%" };
    expect(pickFields(fleet, reading)).toEqual(key);
    expect(fleet.encode(pickFields(fleet, reading))).toEqual(fleet.encode(key));
    const { ts: _ts, ...withoutTs } = reading;
    expect(thrown(() => fleet.encode(pickFields(fleet, withoutTs)))).toMatchObject({ field: "ts" });
  });
});

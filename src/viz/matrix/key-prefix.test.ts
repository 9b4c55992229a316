import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseSchema } from "../../keys/index.js";
import type { SchemaSpec } from "../../keys/types.js";
import { barrierLevel, keyPrefixer, prefixLabels } from "./key-prefix.js";

const spec = (layout: "text" | "binary"): SchemaSpec => ({ version: 1, name: "m", layout, segments: [] });

describe("key prefixes", () => {
  it("labels separator segments without a schema", () => {
    const prefixer = keyPrefixer();
    expect(prefixLabels(prefixer, Buffer.from("fleet-7#device-42#999"))).toEqual(["fleet-7", "device-42"]);
    expect(prefixer.prefix(Buffer.from("fleet-7#device-42#999"), 0).toString()).toBe("fleet-7#");
    expect(prefixer.prefix(Buffer.from("nosep"), 1).toString()).toBe("nosep");
  });

  it("puts the salt bucket first for a salted text schema", () => {
    const prefixer = keyPrefixer({ schema: { saltPrefixLength: 2, spec: spec("text") } });
    expect(prefixLabels(prefixer, Buffer.from("07#fleet-7#device-42#999"))).toEqual([
      "bucket 07",
      "fleet-7",
      "device-42",
    ]);
  });

  it("has only the salt level for a binary schema", () => {
    const prefixer = keyPrefixer({ schema: { saltPrefixLength: 1, spec: spec("binary") } });
    expect(prefixer.levels).toBe(1);
    expect(prefixLabels(prefixer, Buffer.from([3, 0, 1]))).toEqual(["bucket hex:03"]);
  });

  it("picks the deepest level with few enough groups", () => {
    const keys = ["a#1#x", "a#2#x", "b#1#x", "b#2#x", "b#3#x"].map((key) => Buffer.from(key));
    expect(barrierLevel(keyPrefixer(), keys, 2)).toBe(0);
    expect(barrierLevel(keyPrefixer(), keys, 5)).toBe(1);
    expect(barrierLevel(keyPrefixer(), keys, 1)).toBe(-1);
  });

  it("rejects a separator that is not one ASCII character", () => {
    expect(() => keyPrefixer({ separator: "##" })).toThrow(
      expect.objectContaining({ name: "VizArgumentError", argument: "separator", value: "##" }),
    );
  });
});

describe("key prefixes from a real schema", () => {
  it("labels the fleet incident's salted device keys by bucket, device and metric", () => {
    const schema = parseSchema(readFileSync("examples/schemas/fleet.yaml", "utf8"), "yaml");
    const key = schema.encode({ deviceId: "dev-1", metric: "cpu", ts: 1_700_000_000_000 });
    const bucket = String(schema.decode(key).bucket).padStart(2, "0");
    expect(prefixLabels(keyPrefixer({ schema }), key)).toEqual([`bucket ${bucket}`, "dev-1", "cpu"]);
  });
});

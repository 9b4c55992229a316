import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KeyDecodeError, KeyTooLongError, SchemaError } from "./errors.js";
import { textWithJavaHash } from "./java-hash.testsuite.js";
import { compileSchema, defineSchema, parseSchema } from "./schema.js";
import type { SchemaSpec } from "./types.js";

/** The game-studio recipe's create_salted_row_key, computed independently: md5 hex, first 4 digits, mod 100, 3 digits. */
function gameStudioRecipe(playerId: string, actionType: string, timestamp: string): string {
  const originalKey = `${playerId}_${actionType}_${timestamp}`;
  const bucket = Number.parseInt(createHash("md5").update(originalKey).digest("hex").slice(0, 4), 16) % 100;
  return `${String(bucket).padStart(3, "0")}_${originalKey}`;
}

// The shipped example; the player id "player_456789" contains the separator, so it spells the
// constant part as a literal.
const GAME_STUDIO = parseSchema(readFileSync("examples/schemas/game-studio-md5.yaml", "utf8"));

/** Java's `h = 31 * h + b` over signed bytes from 1, in BigInt arithmetic (an independent reference). */
function javaHashReference(bytes: Uint8Array): number {
  let h = 1n;
  for (const b of bytes) h = BigInt.asIntN(32, 31n * h + BigInt(b > 127 ? b - 256 : b));
  return Number(h);
}

describe("compileSchema", () => {
  it("reproduces the game-studio recipe's create_salted_row_key exactly", () => {
    const schema = GAME_STUDIO;
    const key = schema
      .encode({ player: "456789", action: "purchase", timestamp: "20240315143022" })
      .toString();
    expect(key).toBe(gameStudioRecipe("player_456789", "purchase", "20240315143022"));
    expect(key).toBe("061_player_456789_purchase_20240315143022");
    for (let i = 0; i < 50; i++) {
      const values = {
        player: String(100000 + i * 7919),
        action: i % 2 ? "login" : "purchase",
        timestamp: `2024031514${i}`,
      };
      const expected = gameStudioRecipe(`player_${values.player}`, values.action, values.timestamp);
      expect(schema.encode(values).toString()).toBe(expected);
      expect(schema.decode(Buffer.from(expected))).toEqual({ bucket: Number(expected.slice(0, 3)), values });
    }
  });

  it("Phoenix preset: one salt byte from the Java hash of the rest of the key, VARCHAR-style 00 separators", () => {
    const schema = compileSchema({
      version: 1,
      name: "phoenix",
      layout: "binary",
      segments: [
        { field: "host", codec: { type: "string", raw: true } },
        { field: "path", codec: { type: "string", raw: true } },
      ],
      salt: { buckets: 8, hash: "phoenix" },
    });
    const rest = Buffer.from("web-1\u0000/index.html");
    const key = schema.encode({ host: "web-1", path: "/index.html" });
    expect(key.subarray(1)).toEqual(rest);
    expect(key[0]).toBe(Math.abs(javaHashReference(rest) % 8));
    expect(schema.saltPrefixLength).toBe(1);
  });

  it("HBaseWD preset: one raw byte in front of the text key", () => {
    const schema = compileSchema({
      version: 1,
      name: "wd",
      layout: "text",
      segments: [{ field: "row", codec: { type: "string", raw: true } }],
      salt: { buckets: 32, hash: "hbasewd" },
    });
    for (const row of ["row-1", "user123", "ééé", ""]) {
      const key = schema.encode({ row });
      const expected = Math.abs(javaHashReference(Buffer.from(row))) % 32;
      expect(key[0]).toBe(expected);
      expect(key.subarray(1).toString()).toBe(row);
    }
  });

  it("salts only the leading salt fields, so one entity stays in one bucket", () => {
    // defineSchema: a typed identity for specs declared in TypeScript.
    const schema = compileSchema(
      defineSchema({
        version: 1,
        name: "fleet",
        layout: "text",
        segments: [
          { field: "device", codec: { type: "string" } },
          { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
        ],
        salt: { buckets: 16 },
      }),
    );
    expect(schema.saltFields).toEqual(["device"]);
    const buckets = new Set(
      [1, 2, 3, 4].map((ts) => schema.decode(schema.encode({ device: "d7", ts })).bucket),
    );
    expect(buckets).toEqual(new Set([schema.bucketOf({ device: "d7" })]));
    expect(schema.encode({ device: "d7", ts: 1 }).subarray(0, 3).toString()).toMatch(/^\d\d#$/);
  });

  it("refuses a key over Bigtable's 4 KiB limit, naming the schema and the length", () => {
    const schema = compileSchema({
      version: 1,
      name: "big",
      layout: "text",
      segments: [{ field: "s", codec: { type: "string" } }],
    });
    expect(schema.encode({ s: "x".repeat(4096) })).toHaveLength(4096);
    const tooLong = () => schema.encode({ s: "x".repeat(5000) });
    expect(tooLong).toThrow(KeyTooLongError);
    expect(tooLong).toThrow('key of schema "big" is 5000 bytes; Bigtable row keys are at most 4096 bytes');
  });

  it("decode rejects keys of another schema", () => {
    const schema = GAME_STUDIO;
    expect(() => schema.decode(Buffer.from("062_player_456789_purchase_20240315143022"))).toThrow(
      expect.objectContaining({
        name: "KeyDecodeError",
        problem: "salt-mismatch",
        bucket: 62,
        expectedBucket: 61,
      }),
    );
    expect(() => schema.decode(Buffer.from("061_user_456789_purchase_20240315143022"))).toThrow(
      KeyDecodeError,
    );
    expect(() => schema.decode(Buffer.from("061_player_1_2_3_4"))).toThrow(KeyDecodeError);
  });
});

describe("legacy and recipe salts", () => {
  const legacy = (hash: "phoenix" | "phoenix-legacy", buckets = 10) =>
    compileSchema({
      version: 1,
      name: hash,
      layout: "binary",
      segments: [{ field: "id", codec: { type: "string", raw: true } }],
      salt: { buckets, hash },
    });

  it("phoenix-legacy reproduces old Phoenix's out-of-range salt byte for Integer.MIN_VALUE", () => {
    const id = textWithJavaHash(-(2 ** 31));
    expect(javaHashReference(Buffer.from(id))).toBe(-(2 ** 31));
    // (byte) (Math.abs(MIN_VALUE) % 10) = (byte) -8 = 0xf8; current Phoenix: (byte) Math.abs(MIN_VALUE % 10) = 8.
    const old = legacy("phoenix-legacy").encode({ id });
    expect(old[0]).toBe(0xf8);
    expect(legacy("phoenix").encode({ id })[0]).toBe(8);
    expect(legacy("phoenix-legacy").bucketOfKey(old)).toBe(248);
    expect(legacy("phoenix-legacy").decode(old)).toEqual({ bucket: 248, values: { id } });
    // A table written by old Phoenix does not decode under today's formula on that key only.
    expect(() => legacy("phoenix").decode(old)).toThrow(
      expect.objectContaining({ problem: "salt-mismatch", bucket: 248, expectedBucket: 8 }),
    );
    // N a power of two: -2^31 % 16 = 0, in range.
    expect(legacy("phoenix-legacy", 16).encode({ id })[0]).toBe(0);
    for (let i = 0; i < 300; i++) {
      const other = { id: `row-${i}` };
      expect(legacy("phoenix-legacy").encode(other)).toEqual(legacy("phoenix").encode(other));
    }
  });

  const sensors = (input: string, extra: Partial<NonNullable<SchemaSpec["salt"]>> = {}): SchemaSpec => ({
    version: 1,
    name: "sensors",
    layout: "text",
    separator: "#",
    segments: [
      { literal: "farm" },
      { field: "farm", codec: { type: "string" } },
      { field: "sensor", codec: { type: "uint", width: 3 } },
      { field: "ts", codec: { type: "timestamp", unit: "s" } },
    ],
    salt: { buckets: 50, hash: "md5-hex4", input, ...extra },
  });
  const md5Bucket = (text: string, n: number) =>
    Number.parseInt(createHash("md5").update(text).digest("hex").slice(0, 4), 16) % n;

  it("salt.input hashes the template filled with each field's encoded text", () => {
    const schema = compileSchema(sensors("{farm}-{sensor}/{{x}}"));
    expect(schema.saltFields).toEqual(["farm", "sensor"]);
    const values = { farm: "a b", sensor: 7, ts: 1_700_000_000 };
    const key = schema.encode(values);
    // "a b" is encoded escaped ("a$20b"), 7 zero-padded ("007"); {{x}} is the literal "{x}".
    const bucket = md5Bucket("a$20b-007/{x}", 50);
    expect(key.toString()).toBe(`${String(bucket).padStart(2, "0")}#farm#a$20b#007#1700000000`);
    expect(schema.decode(key)).toEqual({ bucket, values });
    expect(schema.bucketOf({ farm: "a b", sensor: 7 })).toBe(bucket);
    expect(schema.plan({ eq: { farm: "a b", sensor: 7 } }).ranges.map((r) => r.bucket)).toEqual([bucket]);
    // Field order in the template is free; a field may repeat.
    const swapped = compileSchema(sensors("{sensor}{farm}{sensor}"));
    expect(swapped.decode(swapped.encode(values)).bucket).toBe(md5Bucket("007a$20b007", 50));
    expect(compileSchema(sensors("{farm}")).saltFields).toEqual(["farm"]);
    expect(swapped.fingerprint).not.toBe(schema.fingerprint);
  });

  it("salt.input errors name the problem", () => {
    const error = (spec: SchemaSpec) => {
      try {
        compileSchema(spec);
      } catch (e) {
        expect(e).toBeInstanceOf(SchemaError);
        return e as SchemaError;
      }
      throw new Error("compiled");
    };
    expect(error(sensors("{nope}"))).toMatchObject({
      path: "salt.input",
      problem: "unknown-field",
      value: "nope",
      allowed: ["farm", "sensor", "ts"],
    });
    expect(error(sensors("{sensor}"))).toMatchObject({ path: "salt.input", problem: "salt-fields" });
    expect(error(sensors("{farm"))).toMatchObject({ path: "salt.input", problem: "salt-input", at: 0 });
    expect(error(sensors("farm}"))).toMatchObject({ path: "salt.input", problem: "salt-input", at: 4 });
    expect(error(sensors("constant"))).toMatchObject({
      path: "salt.input",
      problem: "salt-input",
      value: "constant",
      at: undefined,
    });
    expect(error(sensors("{farm}", { fields: ["farm", "sensor"] }))).toMatchObject({
      path: "salt.fields",
      problem: "salt-fields",
    });
    expect(compileSchema(sensors("{farm}", { fields: ["farm"] })).saltFields).toEqual(["farm"]);
  });
});

describe("schema validation", () => {
  const base: SchemaSpec = {
    version: 1,
    name: "v",
    layout: "text",
    segments: [
      { field: "a", codec: { type: "string" } },
      { field: "t", codec: { type: "timestamp", unit: "ms" } },
    ],
  };
  const refusal = (spec: unknown) => {
    try {
      compileSchema(spec as SchemaSpec);
    } catch (e) {
      expect(e).toBeInstanceOf(SchemaError);
      return e as SchemaError;
    }
    throw new Error("compiled");
  };
  const error = (spec: unknown) => refusal(spec).message;

  it("names the path and the allowed values", () => {
    const segments = [...base.segments, { field: "u", codec: { type: "timestamp", unit: "h" } }];
    expect(error({ ...base, segments })).toBe(
      'segments[2].codec.unit: Invalid type: Expected ("s" | "ms" | "us") but received "h"',
    );
    expect(error({ ...base, layout: "csv" })).toMatch(/^layout: .*"text" \| "binary"/);
    expect(error({ ...base, segments: [{ field: "a", codec: { type: "float" } }] })).toMatch(
      /^segments\[0\]\.codec\.type: .*"string" \| "uint" \| "reversed-uint" \| "int64" \| "timestamp" \| "reverse-domain" \| "enum"/,
    );
    expect(error({ ...base, segments: [{ field: "a" }] })).toBe("segments[0].codec: required");
    expect(error({ ...base, extra: true })).toBe(
      "extra: unknown key; allowed: version, name, layout, separator, segments, salt, writeShards",
    );
    expect(error({ ...base, salt: { buckets: 70000 } })).toMatch(/^salt\.buckets: /);
    expect(refusal({ ...base, salt: { buckets: 300, hash: "phoenix" } })).toMatchObject({
      path: "salt.buckets",
      problem: "out-of-range",
    });
    expect(error({ ...base, salt: { buckets: 300, hash: "phoenix" } })).toMatch(/allowed: 1\.\.256/);
    expect(error({ ...base, salt: { buckets: 100, width: 1 } })).toMatch(/^salt\.width: .*allowed: 2\.\.10/);
    expect(refusal({ ...base, salt: { buckets: 4, fields: ["t"] } })).toMatchObject({
      path: "salt.fields",
      problem: "salt-fields",
    });
    expect(refusal({ ...base, salt: { buckets: 4, fields: ["zz"] } })).toMatchObject({
      path: "salt.fields[0]",
      problem: "unknown-field",
      value: "zz",
      allowed: ["a", "t"],
    });
    expect(refusal({ ...base, separator: "ab" })).toMatchObject({
      path: "separator",
      problem: "separator",
      value: "ab",
    });
    expect(refusal({ ...base, separator: "x" })).toMatchObject({ path: "separator", value: "x" });
    expect(refusal({ ...base, segments: [{ literal: "a#b" }, ...base.segments] })).toMatchObject({
      path: "segments[0].literal",
      problem: "separator-in-literal",
      value: "a#b",
    });
    expect(
      refusal({ ...base, segments: [...base.segments, { field: "a", codec: { type: "string" } }] }),
    ).toMatchObject({ path: "segments[2].field", problem: "duplicate-field", value: "a" });
    expect(refusal({ ...base, segments: [{ field: "bucket", codec: { type: "string" } }] })).toMatchObject({
      path: "segments[0].field",
      problem: "reserved-field",
      value: "bucket",
    });
    expect(refusal({ ...base, segments: [{ literal: "x" }] })).toMatchObject({
      path: "segments",
      problem: "no-field",
    });
    expect(refusal({ ...base, salt: { buckets: 4 }, segments: [base.segments[1]] })).toMatchObject({
      path: "salt.fields",
      problem: "salt-fields",
    });
  });

  it("names an unknown key and the keys allowed beside it, before what it leaves missing", () => {
    const refusal = (spec: unknown) => {
      try {
        compileSchema(spec as SchemaSpec);
      } catch (e) {
        expect(e).toBeInstanceOf(SchemaError);
        const { path, allowed } = e as SchemaError;
        return { path, allowed };
      }
      throw new Error("compiled");
    };
    expect(refusal({ ...base, salt: { bucket: 16 } })).toEqual({
      path: "salt.bucket",
      allowed: ["buckets", "fields", "hash", "width", "input"],
    });
    const segments = [{ field: "a", codec: { type: "timestamp", unit: "ms", reversed: true } }];
    expect(refusal({ ...base, segments })).toEqual({
      path: "segments[0].codec.reversed",
      allowed: ["type", "unit", "reverse"],
    });
    expect(refusal({ ...base, segments: [{ field: "a", codec: { type: "string" }, note: "x" }] })).toEqual({
      path: "segments[0].note",
      allowed: ["field", "codec"],
    });
    expect(refusal({ ...base, layot: "text" })).toMatchObject({ path: "layot" });
  });

  it("parseSchema reads YAML and JSON, with errors for bad syntax", () => {
    const yaml = "version: 1\nname: y\nlayout: text\nsegments:\n  - field: a\n    codec: { type: string }\n";
    expect(parseSchema(yaml).fields.map((f) => f.name)).toEqual(["a"]);
    expect(parseSchema(JSON.stringify(base), "json").fingerprint).toBe(compileSchema(base).fingerprint);
    expect(() => parseSchema("{", "json")).toThrow(
      expect.objectContaining({ name: "SchemaError", problem: "syntax", value: "json" }),
    );
    expect(() => parseSchema("a: [", "yaml")).toThrow(
      expect.objectContaining({ name: "SchemaError", problem: "syntax", value: "yaml" }),
    );
  });
});

describe("fingerprint", () => {
  const spec: SchemaSpec = {
    version: 1,
    name: "f",
    layout: "text",
    segments: [{ field: "a", codec: { type: "uint", width: 4 } }],
    salt: { buckets: 16 },
  };

  it("is stable over formatting, key order and spelled-out defaults", () => {
    const fp = compileSchema(spec).fingerprint;
    expect(fp).toMatch(/^ks1-[0-9a-f]{16}$/);
    const reordered = JSON.parse(
      '{"salt":{"hash":"xxh32","buckets":16},"segments":[{"codec":{"width":4,"type":"uint"},"field":"a"}],"separator":"#","layout":"text","name":"other","version":1}',
    );
    expect(compileSchema(reordered).fingerprint).toBe(fp);
    expect(
      parseSchema(
        `# comment\nversion: 1\nname: f\nlayout: text\nsegments: [{field: a, codec: {type: uint, width: 4}}]\nsalt: {buckets: 16, fields: [a], width: 2}`,
      ).fingerprint,
    ).toBe(fp);
  });

  it("changes with anything that changes the keys", () => {
    const fp = compileSchema(spec).fingerprint;
    expect(compileSchema({ ...spec, salt: { buckets: 17 } }).fingerprint).not.toBe(fp);
    expect(compileSchema({ ...spec, separator: "_" }).fingerprint).not.toBe(fp);
    expect(compileSchema({ ...spec, salt: { buckets: 16, hash: "md5-hex4" } }).fingerprint).not.toBe(fp);
  });
});

describe("decode of damaged keys", () => {
  const segments: SchemaSpec["segments"] = [
    { literal: "k" },
    { field: "s", codec: { type: "string" } },
    { field: "i", codec: { type: "int64" } },
    { field: "e", codec: { type: "enum", values: ["a", "b", "c"] } },
    { field: "d", codec: { type: "reverse-domain" } },
    { field: "u", codec: { type: "uint", width: 3, bytes: 2 } },
    { field: "t", codec: { type: "timestamp", unit: "us", reverse: true } },
    { field: "r", codec: { type: "string", raw: true } },
  ];
  const schemas = [
    compileSchema({ version: 1, name: "text", layout: "text", segments, salt: { buckets: 12 } }),
    compileSchema({ version: 1, name: "binary", layout: "binary", segments, salt: { buckets: 300 } }),
  ];
  const values = fc.record({
    s: fc.string({ unit: fc.constantFrom("a", "\u0000", "#", "$", "é", " "), maxLength: 4 }),
    i: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    e: fc.constantFrom("a", "b", "c"),
    d: fc.constantFrom("www.example.com", "a", "x.y"),
    u: fc.integer({ min: 0, max: 999 }),
    t: fc.bigInt({ min: 0n, max: 10n ** 16n - 1n }),
    r: fc.constantFrom("raw", "", "z~"),
  });

  it.each(schemas)(
    "$spec.layout: a damaged key is rejected with KeyDecodeError or decodes canonically",
    (schema) => {
      fc.assert(
        fc.property(
          values,
          fc.nat(),
          fc.integer({ min: 0, max: 255 }),
          fc.constantFrom("set", "cut", "add"),
          (v, at, byte, how) => {
            const key = schema.encode(v);
            const i = at % key.length;
            const damaged =
              how === "set"
                ? Buffer.concat([key.subarray(0, i), Buffer.of(byte), key.subarray(i + 1)])
                : how === "cut"
                  ? key.subarray(0, i)
                  : Buffer.concat([key.subarray(0, i), Buffer.of(byte), key.subarray(i)]);
            let decoded: ReturnType<typeof schema.decode>;
            try {
              decoded = schema.decode(damaged);
            } catch (error) {
              expect(error).toBeInstanceOf(KeyDecodeError);
              return;
            }
            // Whatever decodes is a key the encoder would write, byte for byte.
            expect(schema.encode(decoded.values)).toEqual(damaged);
          },
        ),
        { numRuns: 2000 },
      );
    },
  );
});

describe("compileSchema with the whole-key presets", () => {
  it.each(["phoenix", "hbasewd"] as const)(
    "refuses a trailing literal that %s would hash but the salt would not",
    (hash) => {
      expect(() =>
        compileSchema({
          version: 1,
          name: "p",
          layout: "binary",
          segments: [{ field: "id", codec: { type: "string", raw: true } }, { literal: "-v1" }],
          salt: { buckets: 16, hash },
        }),
      ).toThrow(expect.objectContaining({ path: "segments", problem: "hash-ends-in-literal", value: hash }));
    },
  );
});

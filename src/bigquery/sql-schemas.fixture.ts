/**
 * Key schemas the SQL decoding is checked on: the shipped examples (the fleet's among them) and
 * ones that together use every codec in both layouts, with separators whose escapes are awkward.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { compileSchema, parseSchema } from "../keys/schema.js";
import type { CodecSpec, FieldValue, FieldValues, KeySchema, SchemaSpec } from "../keys/types.js";

const EXAMPLES = join(import.meta.dirname, "../../examples/schemas");

export function exampleSchemas(): KeySchema[] {
  return readdirSync(EXAMPLES)
    .filter((file) => file.endsWith(".yaml"))
    .sort()
    .map((file) => parseSchema(readFileSync(join(EXAMPLES, file), "utf8")));
}

const ENUM_12 = Array.from({ length: 12 }, (_, i) => `kind-${i}`);
const ENUM_300 = Array.from({ length: 300 }, (_, i) => `v'${i}`);

const SYNTHETIC: SchemaSpec[] = [
  {
    version: 1,
    name: "text_every_codec",
    layout: "text",
    separator: "#",
    segments: [
      { field: "tenant", codec: { type: "string" } },
      { literal: "v1" },
      { field: "host", codec: { type: "reverse-domain" } },
      { field: "kind", codec: { type: "enum", values: ENUM_12 } },
      { field: "n", codec: { type: "uint", width: 6 } },
      { field: "wide", codec: { type: "uint", width: 20 } },
      { field: "delta", codec: { type: "int64" } },
      { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
      { field: "tus", codec: { type: "timestamp", unit: "us" } },
      { field: "tsec", codec: { type: "timestamp", unit: "s", reverse: true } },
      { field: "tail", codec: { type: "string", raw: true } },
    ],
    salt: { buckets: 16, fields: ["tenant"] },
  },
  {
    // The escape byte "}" is above every letter and digit: almost every byte is escaped.
    version: 1,
    name: "text_pipe_md5",
    layout: "text",
    separator: "|",
    segments: [
      { field: "name", codec: { type: "string" } },
      { field: "at", codec: { type: "timestamp", unit: "us", reverse: true } },
      { field: "note", codec: { type: "string", raw: true } },
    ],
    salt: { buckets: 1000, hash: "md5-hex4", fields: ["name"] },
  },
  {
    version: 1,
    name: "text_unsalted",
    layout: "text",
    separator: "!",
    segments: [
      { field: "a", codec: { type: "string" } },
      { field: "b", codec: { type: "uint", width: 3 } },
    ],
  },
  {
    version: 1,
    name: "binary_every_codec",
    layout: "binary",
    segments: [
      { field: "tenant", codec: { type: "string" } },
      { literal: "x" },
      { field: "host", codec: { type: "reverse-domain" } },
      { field: "kind", codec: { type: "enum", values: ENUM_300 } },
      { field: "u1", codec: { type: "uint", bytes: 1 } },
      { field: "u2", codec: { type: "uint", bytes: 2 } },
      { field: "u4", codec: { type: "uint", bytes: 4 } },
      { field: "u8", codec: { type: "uint", bytes: 8 } },
      { field: "delta", codec: { type: "int64" } },
      { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
      { field: "tus", codec: { type: "timestamp", unit: "us", reverse: true } },
      { field: "tsec", codec: { type: "timestamp", unit: "s" } },
      { field: "label", codec: { type: "string", raw: true } },
      { field: "tail", codec: { type: "string", raw: true } },
    ],
    salt: { buckets: 300, fields: ["tenant"] },
  },
  {
    version: 1,
    name: "binary_phoenix",
    layout: "binary",
    segments: [
      { field: "id", codec: { type: "uint", bytes: 8 } },
      { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
      { field: "name", codec: { type: "string" } },
    ],
    salt: { buckets: 32, hash: "phoenix" },
  },
];

export function syntheticSchemas(): KeySchema[] {
  return SYNTHETIC.map((spec) => compileSchema(spec) as KeySchema);
}

/** DuckDB's last finite TIMESTAMP, in µs (INT64_MAX itself is infinity). */
export const DUCKDB_MAX_US = 9223372036854775806n;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
export const MICROS = { s: 1_000_000n, ms: 1000n, us: 1n } as const;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const SPECIALS = ["#", "$", "|", "}", "!", '"', "\u0000", "\u0001", ".", "0", "A", "_", "é", "😀", "%", " "];
export const text = (exclude?: string) =>
  fc
    .string({
      unit: fc.oneof(fc.constantFrom(...SPECIALS), fc.string({ unit: "binary", minLength: 1, maxLength: 1 })),
      maxLength: 10,
    })
    .map((s) => {
      const wellFormed = s.replace(LONE_SURROGATE, "\uFFFD");
      return exclude === undefined ? wellFormed : wellFormed.replaceAll(exclude, "");
    });

/** An integer in [min, max], a sixth of the time at an edge of it or of `outer` (beyond max). */
function integer(min: bigint, max: bigint, asNumber: boolean, outer = max): fc.Arbitrary<FieldValue> {
  const edges = [min, min + 1n, max - 1n, max, outer - 1n, outer].filter((v) => v >= min && v <= outer);
  return fc
    .oneof({ weight: 5, arbitrary: fc.bigInt(min, max) }, { weight: 1, arbitrary: fc.constantFrom(...edges) })
    .map((v) => (asNumber && v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : v));
}

function arbitraryFor(schema: KeySchema, codec: CodecSpec): fc.Arbitrary<FieldValue> {
  const textLayout = schema.spec.layout === "text";
  switch (codec.type) {
    case "string":
      if (!codec.raw) return text();
      // Raw strings may not hold the separator (text) or a NUL (binary).
      return text(textLayout ? (schema.spec.separator ?? "#") : "\u0000");
    case "reverse-domain":
      return text();
    case "uint":
    case "reversed-uint": {
      const max = textLayout ? 10n ** BigInt(codec.width!) - 1n : 2n ** BigInt(8 * codec.bytes!) - 1n;
      return integer(0n, max, max <= MAX_SAFE);
    }
    case "int64":
      return integer(-(2n ** 63n), 2n ** 63n - 1n, false);
    case "timestamp": {
      const digits = { s: 10, ms: 13, us: 16 }[codec.unit];
      const full = textLayout ? 10n ** BigInt(digits) - 1n : 2n ** 64n - 1n;
      const max = codec.unit === "us" ? full : full < MAX_SAFE ? full : MAX_SAFE;
      // Mostly within DuckDB's TIMESTAMP range; the codec's own edges too, which the view leaves out.
      const inRange = DUCKDB_MAX_US / MICROS[codec.unit];
      return integer(0n, max < inRange ? max : inRange, codec.unit !== "us", max);
    }
    case "enum":
      return fc.constantFrom(...codec.values);
  }
}

export function valuesOf(schema: KeySchema): fc.Arbitrary<FieldValues> {
  const fields = schema.fields;
  return fc.record(
    Object.fromEntries(fields.map((f) => [f.name, arbitraryFor(schema, f.codec)])),
  ) as fc.Arbitrary<FieldValues>;
}

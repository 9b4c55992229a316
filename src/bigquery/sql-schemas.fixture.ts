/**
 * Key schemas the SQL decoding is checked on: the shipped examples (the fleet's among them) and
 * ones that together use every codec in both layouts, with separators whose escapes are awkward.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { compileSchema, parseSchema } from "../keys/schema.js";
import type { KeySchema, SchemaSpec } from "../keys/types.js";

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

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { reverseLabels } from "./codec.js";
import type { FieldValueProblem } from "./errors.js";
import { compileSchema } from "./schema.js";
import type { CodecSpec, FieldValue, FieldValues, SchemaSpec } from "./types.js";

type Layout = { layout: "text"; separator: string } | { layout: "binary" };
const LAYOUTS: Layout[] = [
  { layout: "text", separator: "#" },
  { layout: "text", separator: "_" },
  { layout: "binary" },
];

const utf8 = (text: string) => Buffer.from(text);
const sign = (n: number) => (n > 0 ? 1 : n < 0 ? -1 : 0);
const compareNumbers = (a: FieldValue, b: FieldValue) =>
  sign(Number(BigInt(a as bigint) - BigInt(b as bigint)));
const compareStrings = (a: FieldValue, b: FieldValue) => Buffer.compare(utf8(a as string), utf8(b as string));

// Strings heavy in the bytes that matter: terminators, separators, escapes, UTF-8 lead bytes.
const TRICKY = [
  "\u0000",
  "\u0001",
  " ",
  "!",
  "#",
  "$",
  "%",
  "_",
  "`",
  "a",
  "b",
  "~",
  "\u007f",
  "é",
  "\uffff",
  "😀",
];
const anyString = fc.oneof(
  fc.string({ unit: fc.constantFrom(...TRICKY), maxLength: 8 }),
  fc.string({ unit: "binary", maxLength: 8 }),
);
/** Raw strings are order-preserving only when no character sorts below the separator. */
const rawString = (layout: Layout) =>
  fc.string({
    unit: fc.constantFrom(
      ...TRICKY.filter((c) => (layout.layout === "binary" ? c !== "\u0000" : c > layout.separator)),
    ),
    maxLength: 8,
  });

interface Case {
  name: string;
  codec: CodecSpec;
  values: (layout: Layout) => fc.Arbitrary<FieldValue>;
  /** Logical order, as key order must follow it. */
  compare: (a: FieldValue, b: FieldValue) => number;
}

const U64_MAX = 2n ** 64n - 1n;
const CASES: Case[] = [
  { name: "escaped string", codec: { type: "string" }, values: () => anyString, compare: compareStrings },
  { name: "raw string", codec: { type: "string", raw: true }, values: rawString, compare: compareStrings },
  {
    name: "uint (width 3 / 2 bytes)",
    codec: { type: "uint", width: 3, bytes: 2 },
    values: (l) => fc.integer({ min: 0, max: l.layout === "text" ? 999 : 65535 }),
    compare: compareNumbers,
  },
  {
    name: "uint (default: 20 digits / 8 bytes, bigint)",
    codec: { type: "uint" },
    values: (l) => fc.bigInt({ min: 0n, max: l.layout === "text" ? 10n ** 20n - 1n : U64_MAX }),
    compare: compareNumbers,
  },
  {
    name: "int64",
    codec: { type: "int64" },
    values: () => fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    compare: compareNumbers,
  },
  ...(["s", "ms"] as const).flatMap((unit) =>
    [false, true].map<Case>((reverse) => ({
      name: `timestamp ${unit}${reverse ? " reverse" : ""}`,
      codec: { type: "timestamp", unit, reverse },
      values: (l) =>
        fc.integer({
          min: 0,
          max: l.layout === "text" ? 10 ** (unit === "s" ? 10 : 13) - 1 : Number.MAX_SAFE_INTEGER,
        }),
      compare: (a, b) => (reverse ? -1 : 1) * compareNumbers(a, b),
    })),
  ),
  ...[false, true].map<Case>((reverse) => ({
    name: `timestamp us${reverse ? " reverse" : ""}`,
    codec: { type: "timestamp", unit: "us", reverse },
    values: (l) => fc.bigInt({ min: 0n, max: l.layout === "text" ? 10n ** 16n - 1n : U64_MAX }),
    compare: (a, b) => (reverse ? -1 : 1) * compareNumbers(a, b),
  })),
  {
    name: "reverse-domain",
    codec: { type: "reverse-domain" },
    values: () =>
      fc.array(fc.stringMatching(/^[a-z0-9-]{0,5}$/), { minLength: 1, maxLength: 4 }).map((l) => l.join(".")),
    compare: (a, b) => compareStrings(reverseLabels(a as string), reverseLabels(b as string)),
  },
  {
    name: "enum",
    codec: { type: "enum", values: ["cpu", "mem", "disk", "net", "a", "b", "c", "d", "e", "f", "g", "h"] },
    values: () => fc.constantFrom("cpu", "mem", "disk", "net", "a", "b", "c", "d", "e", "f", "g", "h"),
    compare: (a, b) => {
      const order = ["cpu", "mem", "disk", "net", "a", "b", "c", "d", "e", "f", "g", "h"];
      return sign(order.indexOf(a as string) - order.indexOf(b as string));
    },
  },
];

/** The codec under test, followed by an escaped string: tuples (x, y) exercise the codec's end. */
function schemaFor(c: Case, layout: Layout, salted: boolean) {
  const spec: SchemaSpec = {
    version: 1,
    name: "codec-test",
    ...layout,
    segments: [{ literal: "lit" }, { field: "x", codec: c.codec }, { field: "y", codec: { type: "string" } }],
  };
  if (salted) spec.salt = { buckets: 7, fields: ["x"] };
  return compileSchema(spec);
}

describe.each(LAYOUTS)("codecs in $layout layout (separator $separator)", (layout) => {
  describe.each(CASES)("$name", (c) => {
    it("round-trips encode → decode", () => {
      const schema = schemaFor(c, layout, true);
      fc.assert(
        fc.property(c.values(layout), anyString, (x, y) => {
          const decoded = schema.decode(schema.encode({ x, y }));
          expect(decoded.values).toEqual({ x, y });
          expect(decoded.bucket).toBe(schema.bucketOf({ x, y }));
        }),
        { numRuns: 150 },
      );
    });

    it("orders keys as the value tuples (byte order == logical order)", () => {
      const schema = schemaFor(c, layout, false);
      const tuple = fc.record({ x: c.values(layout), y: anyString });
      fc.assert(
        fc.property(tuple, tuple, (a, b) => {
          const logical = c.compare(a.x, b.x) || compareStrings(a.y, b.y);
          expect(sign(Buffer.compare(schema.encode(a), schema.encode(b)))).toBe(sign(logical));
        }),
        { numRuns: 300 },
      );
    });
  });
});

describe("codec specifics", () => {
  const text = (segments: SchemaSpec["segments"], separator = "#") =>
    compileSchema({ version: 1, name: "t", layout: "text", separator, segments });

  it("text escaping keeps ordinary ASCII readable", () => {
    const s = text([{ field: "s", codec: { type: "string" } }]);
    expect(s.encode({ s: "device-42.local" }).toString()).toBe("device-42.local");
    expect(s.encode({ s: "a b#c$d" }).toString()).toBe("a$20b$23c$24d");
  });

  it("reverse-domain stores labels reversed", () => {
    const s = text([{ field: "d", codec: { type: "reverse-domain" } }]);
    expect(s.encode({ d: "www.example.com" }).toString()).toBe("com.example.www");
    expect(s.decode(Buffer.from("com.example.www")).values.d).toBe("www.example.com");
  });

  it("reverse timestamps sort newest first and decode to the original", () => {
    const s = text([{ field: "t", codec: { type: "timestamp", unit: "ms", reverse: true } }]);
    const older = s.encode({ t: 1_700_000_000_000 });
    const newer = s.encode({ t: new Date(1_700_000_000_001) });
    expect(older.toString()).toBe("8299999999999");
    expect(Buffer.compare(newer, older)).toBe(-1);
    expect(s.decode(newer).values.t).toBe(1_700_000_000_001);
  });

  it("accepts a Date, flooring it to the unit", () => {
    const s = text([{ field: "t", codec: { type: "timestamp", unit: "s" } }]);
    expect(s.decode(s.encode({ t: new Date(1_500) })).values.t).toBe(1);
    const us = text([{ field: "t", codec: { type: "timestamp", unit: "us" } }]);
    expect(us.decode(us.encode({ t: new Date(2) })).values.t).toBe(2000n);
  });

  it("rejects bad values with the field, the value and what is allowed", () => {
    const s = text([
      { field: "name", codec: { type: "string", raw: true } },
      { field: "kind", codec: { type: "enum", values: ["a", "b"] } },
      { field: "n", codec: { type: "uint", width: 2 } },
      { field: "t", codec: { type: "timestamp", unit: "ms" } },
    ]);
    const ok = { name: "x", kind: "a", n: 1, t: 1 };
    const refused = (fields: FieldValues, problem: FieldValueProblem, more: object = {}) =>
      expect(() => s.encode(fields)).toThrow(
        expect.objectContaining({ name: "FieldValueError", problem, ...more }),
      );
    refused({ ...ok, name: "x#y" }, "forbidden-character", { field: "name", value: "x#y" });
    refused({ ...ok, kind: "c" }, "not-allowed", { field: "kind", value: "c", allowed: ["a", "b"] });
    refused({ ...ok, n: 100 }, "out-of-range", { field: "n", value: 100 });
    refused({ ...ok, n: 1.5 }, "wrong-type", { field: "n", value: 1.5 });
    refused({ ...ok, t: -1 }, "out-of-range", { field: "t", value: -1 });
    refused({ ...ok, name: 5 }, "wrong-type", { field: "name", value: 5 });
    refused({ name: "x", kind: "a", t: 1 }, "missing", { field: "n" });
    refused({ ...ok, name: "\ud800" }, "malformed-unicode", { field: "name", value: "\ud800" });
  });

  it("rejects NUL in a binary raw string", () => {
    const s = compileSchema({
      version: 1,
      name: "b",
      layout: "binary",
      segments: [{ field: "s", codec: { type: "string", raw: true } }],
    });
    expect(() => s.encode({ s: "a\u0000" })).toThrow(/field "s": .* NUL/);
  });
});

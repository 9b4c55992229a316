import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { prefixSuccessor } from "./bytes.js";
import { reverseLabels } from "./codec.js";
import { FieldValueError, QueryError } from "./errors.js";
import { compileSchema, parseSchema } from "./schema.js";
import type {
  CodecSpec,
  FieldValue,
  FieldValues,
  KeySchema,
  Query,
  SchemaSpec,
  SegmentSpec,
} from "./types.js";

type Layout = { layout: "text"; separator: "#" | "_" } | { layout: "binary" };

const utf8 = (s: FieldValue) => Buffer.from(s as string);
const numeric = (a: FieldValue, b: FieldValue) => {
  const d = BigInt(a as bigint) - BigInt(b as bigint);
  return d > 0n ? 1 : d < 0n ? -1 : 0;
};

/** A small value domain per codec (so queries hit rows) and the order its ranges use. */
interface Domain {
  codec: CodecSpec;
  values: (layout: Layout) => FieldValue[];
  compare: (a: FieldValue, b: FieldValue) => number;
  prefixes?: string[];
}
const STRINGS = ["", "a", "ab", "a b", "a#", "a_", "b", "é", "a\u0000", "~"];
const DOMAINS: Domain[] = [
  {
    codec: { type: "string" },
    values: () => STRINGS,
    compare: (a, b) => Buffer.compare(utf8(a), utf8(b)),
    prefixes: ["", "a", "a#", "é", "b"],
  },
  {
    codec: { type: "string", raw: true },
    // Raw strings keep their order only without characters below the separator (docs/keys.md).
    values: (l) =>
      ["", "a", "ab", "abc", "b", "é", "~"].filter(
        (s) => l.layout === "binary" || [...s].every((c) => c > l.separator),
      ),
    compare: (a, b) => Buffer.compare(utf8(a), utf8(b)),
    prefixes: ["", "a", "ab", "é"],
  },
  { codec: { type: "uint", width: 2, bytes: 1 }, values: () => [0, 1, 2, 9, 10, 99], compare: numeric },
  {
    codec: { type: "int64" },
    values: () => [-(2n ** 63n), -2n, -1n, 0n, 1n, 2n ** 63n - 1n],
    compare: numeric,
  },
  {
    codec: { type: "timestamp", unit: "ms" },
    values: () => [0, 1, 2, 1_700_000_000_000, 9_999_999_999_999],
    compare: numeric,
  },
  {
    codec: { type: "timestamp", unit: "ms", reverse: true },
    values: () => [0, 1, 2, 1_700_000_000_000, 9_999_999_999_999],
    compare: numeric,
  },
  {
    codec: { type: "reverse-domain" },
    values: () => ["a.com", "b.a.com", "com", "x.org", "a.b"],
    compare: (a, b) => Buffer.compare(utf8(reverseLabels(a as string)), utf8(reverseLabels(b as string))),
  },
  {
    codec: { type: "enum", values: ["x", "y", "z"] },
    values: () => ["x", "y", "z"],
    compare: (a, b) => (a as string).localeCompare(b as string),
  },
];

interface Case {
  schema: KeySchema;
  domains: Domain[];
  layout: Layout;
  rows: FieldValues[];
  query: Query;
}

const layoutArb = fc.constantFrom<Layout>(
  { layout: "text", separator: "#" },
  { layout: "text", separator: "_" },
  { layout: "binary" },
);

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    layout: layoutArb,
    domains: fc.array(fc.constantFrom(...DOMAINS), { minLength: 1, maxLength: 3 }),
    literals: fc.array(fc.constantFrom<string | null>(null, null, "lit", "z"), {
      minLength: 4,
      maxLength: 4,
    }),
    salt: fc.option(
      fc.record({
        buckets: fc.integer({ min: 1, max: 6 }),
        hash: fc.constantFrom("xxh32", "md5-hex4", "phoenix", "phoenix-legacy") as fc.Arbitrary<
          "xxh32" | "md5-hex4" | "phoenix" | "phoenix-legacy"
        >,
        count: fc.nat(),
        // A salt.input template over the salt fields, in reverse order with literal text around.
        templated: fc.boolean(),
      }),
      { nil: undefined },
    ),
  })
  .chain(({ layout, domains, literals, salt }) => {
    const segments: SegmentSpec[] = [];
    domains.forEach((d, i) => {
      if (literals[i]) segments.push({ literal: literals[i]! });
      segments.push({ field: `f${i}`, codec: d.codec });
    });
    const fields = salt && domains.slice(0, 1 + (salt.count % domains.length)).map((_, i) => `f${i}`);
    // Phoenix hashes the whole key after the salt: with every field salted it takes no trailing literal.
    const wholeKeyHash =
      salt !== undefined &&
      !salt.templated &&
      salt.hash.startsWith("phoenix") &&
      fields?.length === domains.length;
    if (literals[3] && !wholeKeyHash) segments.push({ literal: literals[3]! });
    const spec: SchemaSpec = { version: 1, name: "p", ...layout, segments };
    if (salt && fields) {
      spec.salt = { buckets: salt.buckets, hash: salt.hash, fields };
      if (salt.templated)
        spec.salt.input = `<${[...fields]
          .reverse()
          .map((f) => `{${f}}`)
          .join("{{}}")}>`;
    }
    const schema = compileSchema(spec);
    const row = fc
      .tuple(...domains.map((d) => fc.constantFrom(...d.values(layout))))
      .map((vs) => Object.fromEntries(vs.map((v, i) => [`f${i}`, v])));
    return fc.record({
      schema: fc.constant(schema),
      domains: fc.constant(domains),
      layout: fc.constant(layout),
      rows: fc.array(row, { minLength: 1, maxLength: 40 }),
      query: queryArb(domains, layout),
    });
  });

function queryArb(domains: Domain[], layout: Layout): fc.Arbitrary<Query> {
  return fc.integer({ min: 0, max: domains.length }).chain((bound) => {
    const eq = fc.tuple(...domains.slice(0, bound).map((d) => fc.constantFrom(...d.values(layout))));
    const next = domains[bound];
    const value = next ? fc.constantFrom(...next.values(layout)) : fc.constant(undefined);
    const opt = fc.option(value, { nil: undefined });
    const extra: fc.Arbitrary<Partial<Query>> = !next
      ? fc.constant({})
      : fc.oneof(
          fc.constant({}),
          fc
            .record({
              lower: fc.constantFrom("gte", "gt"),
              upper: fc.constantFrom("lte", "lt"),
              lo: opt,
              hi: opt,
            })
            .map(({ lower, upper, lo, hi }) => ({
              range: {
                field: `f${bound}`,
                ...(lo !== undefined && { [lower]: lo }),
                ...(hi !== undefined && { [upper]: hi }),
              },
            })),
          ...(next.prefixes
            ? [fc.constantFrom(...next.prefixes).map((p) => ({ prefix: { field: `f${bound}`, value: p } }))]
            : []),
        );
    return fc
      .tuple(eq, extra)
      .map(([vs, rest]) => ({ eq: Object.fromEntries(vs.map((v, i) => [`f${i}`, v])), ...rest }));
  });
}

function matches(row: FieldValues, query: Query, domains: Domain[]): boolean {
  const eq = query.eq ?? {};
  for (const [name, value] of Object.entries(eq)) {
    if (domains[Number(name.slice(1))]!.compare(row[name]!, value!) !== 0) return false;
  }
  if (query.range) {
    const { field, gte, gt, lte, lt } = query.range;
    const cmp = (b: FieldValue) => domains[Number(field.slice(1))]!.compare(row[field]!, b);
    if (gte !== undefined && cmp(gte) < 0) return false;
    if (gt !== undefined && cmp(gt) <= 0) return false;
    if (lte !== undefined && cmp(lte) > 0) return false;
    if (lt !== undefined && cmp(lt) >= 0) return false;
  }
  if (query.prefix) {
    if (
      !utf8(row[query.prefix.field]!)
        .subarray(0, utf8(query.prefix.value).length)
        .equals(utf8(query.prefix.value))
    )
      return false;
  }
  return true;
}

describe("planner", () => {
  it("ranges contain exactly the keys that match the query (random schemas, rows, queries)", () => {
    fc.assert(
      fc.property(caseArb, ({ schema, domains, rows, query }) => {
        const keys = rows.map((r) => schema.encode(r)).sort(Buffer.compare);
        const plan = schema.plan(query);
        const inRanges = keys.filter((k) =>
          plan.ranges.some(
            (r) => Buffer.compare(k, r.start) >= 0 && (r.end === null || Buffer.compare(k, r.end) < 0),
          ),
        );
        const expected = rows
          .filter((r) => matches(r, query, domains))
          .map((r) => schema.encode(r))
          .sort(Buffer.compare);
        expect(inRanges.map((k) => k.toString("hex"))).toEqual(expected.map((k) => k.toString("hex")));

        expect(plan.fanout).toBe(plan.ranges.length);
        plan.ranges.forEach((r, i) => {
          if (r.end) expect(Buffer.compare(r.start, r.end)).toBe(-1);
          const next = plan.ranges[i + 1];
          if (next) expect(r.end !== null && Buffer.compare(r.end, next.start) <= 0).toBe(true);
        });
        const bound = Object.keys(query.eq ?? {}).length;
        if (bound >= schema.saltFields.length && schema.saltFields.length > 0)
          expect(plan.fanout).toBeLessThanOrEqual(1);
        else expect([0, schema.bucketCount]).toContain(plan.fanout);
      }),
      { numRuns: 1500 },
    );
  });

  // The shipped example: deviceId#metric#reverse-ms, 16 buckets salted over deviceId.
  const fleet = parseSchema(readFileSync("examples/schemas/fleet.yaml", "utf8"));

  it("reads one bucket when the salt fields are bound, every bucket otherwise", () => {
    const one = fleet.plan({ eq: { deviceId: "d1", metric: "cpu" }, limit: 100 });
    const bucket = fleet.bucketOf({ deviceId: "d1" });
    const salt = String(bucket).padStart(2, "0");
    expect(one).toEqual({
      fanout: 1,
      limit: 100,
      ranges: [{ bucket, start: Buffer.from(`${salt}#d1#cpu#`), end: Buffer.from(`${salt}#d1#cpu$`) }],
    });
    const all = fleet.plan({ prefix: { field: "deviceId", value: "d" } });
    expect(all.fanout).toBe(16);
    expect(all.ranges.map((r) => r.start.toString())).toEqual(
      Array.from({ length: 16 }, (_, b) => `${String(b).padStart(2, "0")}#d`),
    );
    expect(all.ranges[3]!.end!.toString()).toBe("03#e");
  });

  it("maps a time range onto reversed bytes", () => {
    const plan = fleet.plan({
      eq: { deviceId: "d1", metric: "mem" },
      range: { field: "ts", gte: 1000, lt: 2000 },
    });
    const salt = String(fleet.bucketOf({ deviceId: "d1" })).padStart(2, "0");
    // Newest first: the range starts just after t = 2000 and ends just after t = 1000.
    expect(plan.ranges[0]!.start.toString()).toBe(`${salt}#d1#mem#9999999997999\u0000`);
    expect(plan.ranges[0]!.end!.toString()).toBe(`${salt}#d1#mem#9999999998999\u0000`);
  });

  it("rejects queries that do not bind a prefix", () => {
    const refused = (query: Query, where: Partial<QueryError>) =>
      expect(() => fleet.plan(query)).toThrow(expect.objectContaining({ name: "QueryError", ...where }));
    refused({ eq: { metric: "cpu" } }, { problem: "unbound-prefix", field: "metric", expected: "deviceId" });
    refused(
      { range: { field: "ts", gte: 1 } },
      { problem: "not-the-next-field", field: "ts", expected: "deviceId" },
    );
    refused(
      { eq: { deviceId: "d", metric: "cpu" }, prefix: { field: "ts", value: "1" } },
      { problem: "prefix-needs-string", field: "ts" },
    );
    refused(
      { range: { field: "deviceId", gte: "a", gt: "b" } },
      { problem: "conflicting-bounds", field: "deviceId" },
    );
    refused({ limit: -1 }, { problem: "bad-limit" });
    expect(() => fleet.plan({ limit: -1 })).toThrow(QueryError);
  });

  it('names the field a range was expected on, in the error\'s fields: never "undefined"', () => {
    const refusal = (query: Query) => {
      try {
        fleet.plan(query);
      } catch (error) {
        return error;
      }
      throw new Error("expected a refusal");
    };
    // A range without its field (as JavaScript callers write it) is told which field to name.
    const unnamed = refusal({ range: { gte: "a" } } as unknown as Query);
    expect(unnamed).toBeInstanceOf(QueryError);
    expect(unnamed).toMatchObject({ field: undefined, expected: "deviceId" });
    expect((unnamed as Error).message).toContain('{ field: "deviceId"');
    expect((unnamed as Error).message).not.toContain("undefined");
    expect(refusal({ range: { field: "ts", gte: 1 } })).toMatchObject({ field: "ts", expected: "deviceId" });
    expect(refusal({ eq: { metric: "cpu" } })).toMatchObject({ field: "metric", expected: "deviceId" });
  });

  it("names an unknown field before judging the query's shape", () => {
    const unknownField = (query: Query) => {
      try {
        fleet.plan(query);
      } catch (error) {
        expect(error).toBeInstanceOf(FieldValueError);
        return (error as FieldValueError).field;
      }
      throw new Error("planned");
    };
    expect(unknownField({ eq: { nope: "x" } })).toBe("nope");
    // A bound prefix with a misspelt second field: the name, not "binds a non-prefix".
    expect(unknownField({ eq: { deviceId: "a", metrik: "cpu" } })).toBe("metrik");
    expect(unknownField({ eq: { deviceId: "a" }, range: { field: "tss", gte: 1 } })).toBe("tss");
    expect(unknownField({ prefix: { field: "device", value: "d" } })).toBe("device");
  });

  it("computes exclusive ends as byte successors", () => {
    expect(prefixSuccessor(Buffer.from([0x61, 0xff, 0xff]))).toEqual(Buffer.from([0x62]));
    expect(prefixSuccessor(Buffer.from([0x01, 0xfe]))).toEqual(Buffer.from([0x01, 0xff]));
    expect(prefixSuccessor(Buffer.from([0xff, 0xff]))).toBeNull();
    expect(prefixSuccessor(Buffer.alloc(0))).toBeNull();
    const binary = compileSchema({
      version: 1,
      name: "b",
      layout: "binary",
      segments: [
        { field: "n", codec: { type: "uint", bytes: 1 } },
        { field: "s", codec: { type: "string" } },
      ],
      salt: { buckets: 256 },
    });
    const top = binary.plan({ eq: { n: 255 } }).ranges.find((r) => r.bucket === 255)!;
    expect(top.start).toEqual(Buffer.from([0xff, 0xff]));
    expect(top.end).toBeNull();
    // Nothing sorts after every key starting with FF FF: "greater than" it is empty, not everything.
    const unsalted = compileSchema({ ...binary.spec, salt: undefined });
    expect(unsalted.plan({ range: { field: "n", gt: 255 } })).toEqual({ fanout: 0, ranges: [] });
    expect(unsalted.plan({ range: { field: "n", gte: 255 } }).ranges).toEqual([
      { bucket: 0, start: Buffer.from([0xff]), end: null },
    ]);
  });
});

describe("plan with Date bounds on a timestamp in seconds", () => {
  const schema = compileSchema({
    version: 1,
    name: "seconds",
    layout: "binary",
    segments: [
      { field: "id", codec: { type: "string" } },
      { field: "ts", codec: { type: "timestamp", unit: "s" } },
    ],
  });
  const keys = [9, 10, 11].map((ts) => ({ ts, key: schema.encode({ id: "a", ts }) }));
  const selected = (range: NonNullable<Parameters<typeof schema.plan>[0]["range"]>) => {
    const [planned] = schema.plan({ eq: { id: "a" }, range }).ranges;
    return keys
      .filter(
        ({ key }) =>
          Buffer.compare(key, planned!.start) >= 0 &&
          (planned!.end === null || Buffer.compare(key, planned!.end) < 0),
      )
      .map(({ ts }) => ts);
  };

  it("keeps exactly the rows a millisecond bound selects", () => {
    expect(selected({ field: "ts", lt: new Date(10_500) })).toEqual([9, 10]);
    expect(selected({ field: "ts", gte: new Date(10_500) })).toEqual([11]);
    expect(selected({ field: "ts", gt: new Date(10_500) })).toEqual([11]);
    expect(selected({ field: "ts", lte: new Date(10_500) })).toEqual([9, 10]);
    expect(selected({ field: "ts", gte: new Date(10_000), lt: new Date(11_000) })).toEqual([10]);
  });
});

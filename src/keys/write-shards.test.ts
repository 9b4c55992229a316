import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SchemaError } from "./errors.js";
import { compileSchema } from "./schema.js";
import type { FieldValues, KeySchema, SchemaSpec, SegmentSpec, WriteShardsSpec } from "./types.js";
import { WriteShardError } from "./write-shards.js";

type Layout = { layout: "text"; separator: "#" | "_" } | { layout: "binary" };

const LAYOUTS: Layout[] = [
  { layout: "text", separator: "#" },
  { layout: "text", separator: "_" },
  { layout: "binary" },
];
const TENANTS = ["", "a", "ab", "a#", "a_", "b", "é", "a\u0000"];
/** Last segments whose lengths vary (strings) or not (integers, timestamps), and a trailing literal. */
const ENDINGS: SegmentSpec[][] = [
  [{ field: "item", codec: { type: "string" } }],
  [{ field: "item", codec: { type: "uint", width: 4, bytes: 2 } }],
  [{ field: "item", codec: { type: "string" } }, { literal: "end" }],
];

function itemsOf(schema: KeySchema): (string | number)[] {
  return schema.fields[1]!.codec.type === "string" ? ["", "x", "xy", "x#", "x_y", "z"] : [0, 1, 7, 99];
}

function spec(
  layout: Layout,
  ending: SegmentSpec[],
  salted: boolean,
  writeShards?: WriteShardsSpec,
): SchemaSpec {
  const codec = { ...ending[0]! } as SegmentSpec;
  if ("codec" in codec && codec.codec.type === "uint") {
    codec.codec = layout.layout === "text" ? { type: "uint", width: 4 } : { type: "uint", bytes: 2 };
  }
  return {
    version: 1,
    name: "counters",
    ...layout,
    segments: [{ field: "tenant", codec: { type: "string" } }, codec, ...ending.slice(1)],
    ...(salted ? { salt: { buckets: 8, fields: ["tenant"] } } : {}),
    ...(writeShards ? { writeShards } : {}),
  };
}

const arbitrarySchema = fc
  .record({
    layout: fc.constantFrom(...LAYOUTS),
    ending: fc.constantFrom(...ENDINGS),
    salted: fc.boolean(),
    count: fc.constantFrom(2, 3, 10, 11, 256),
    hotTenant: fc.option(fc.constantFrom(...TENANTS), { nil: undefined }),
  })
  .map(({ layout, ending, salted, count, hotTenant }) => {
    const entities = hotTenant === undefined ? undefined : [{ tenant: hotTenant }];
    return {
      plain: compileSchema(spec(layout, ending, salted)),
      sharded: compileSchema(spec(layout, ending, salted, { count, ...(entities ? { entities } : {}) })),
      hotTenant,
    };
  });

/** Every logical row of the small domain, with its physical keys (one per shard, or the one key). */
function physicalRows(schema: KeySchema): { values: FieldValues; keys: Buffer[] }[] {
  return TENANTS.flatMap((tenant) =>
    itemsOf(schema).map((item) => {
      const values = { tenant, item };
      const shards = schema.shardsOf(values);
      const keys =
        shards === 1
          ? [schema.encode(values)]
          : Array.from({ length: shards }, (_, shard) => schema.encode(values, shard));
      return { values, keys };
    }),
  );
}

describe("write-shard keys", () => {
  it("every shard key decodes back to its logical row, bucket and shard", () => {
    fc.assert(
      fc.property(arbitrarySchema, ({ sharded }) => {
        for (const { values, keys } of physicalRows(sharded)) {
          keys.forEach((key, shard) => {
            const decoded = sharded.decode(key);
            expect(decoded.values).toEqual(values);
            expect(decoded.bucket).toBe(sharded.bucketOf({ tenant: values.tenant }));
            expect(decoded.shard).toBe(keys.length === 1 ? undefined : shard);
          });
        }
      }),
      { numRuns: 60 },
    );
  });

  it("a logical row's shard keys are distinct and adjacent in key order, with no other key among them", () => {
    fc.assert(
      fc.property(arbitrarySchema, ({ sharded }) => {
        const rows = physicalRows(sharded);
        const all = rows
          .flatMap(({ keys }, row) => keys.map((key) => ({ key, row })))
          .sort((a, b) => Buffer.compare(a.key, b.key));
        expect(new Set(all.map(({ key }) => key.toString("hex"))).size).toBe(all.length);
        for (let row = 0; row < rows.length; row++) {
          const positions = all.flatMap((entry, i) => (entry.row === row ? [i] : []));
          expect(positions.at(-1)! - positions[0]!).toBe(positions.length - 1);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("rows of entities that are not sharded keep today's keys byte for byte", () => {
    fc.assert(
      fc.property(arbitrarySchema, ({ plain, sharded, hotTenant }) => {
        for (const tenant of TENANTS) {
          if (hotTenant === undefined || tenant === hotTenant) continue;
          for (const item of itemsOf(plain)) {
            expect(sharded.shardsOf({ tenant, item })).toBe(1);
            expect(sharded.encode({ tenant, item }).equals(plain.encode({ tenant, item }))).toBe(true);
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it("a query reads every shard of the rows it binds and nothing else, in as many ranges as without shards", () => {
    fc.assert(
      fc.property(
        arbitrarySchema,
        fc.constantFrom(...TENANTS),
        fc.boolean(),
        ({ plain, sharded }, tenant, point) => {
          for (const item of point ? itemsOf(sharded) : [undefined]) {
            const eq = item === undefined ? { tenant } : { tenant, item };
            const plan = sharded.plan({ eq });
            expect(plan.fanout).toBe(plain.plan({ eq }).fanout);
            expect(plan.shardsPerRow).toBe(sharded.shardsOf(eq));
            for (const { values, keys } of physicalRows(sharded)) {
              const wanted = values.tenant === tenant && (item === undefined || values.item === item);
              for (const key of keys) {
                const inside = plan.ranges.some(
                  (r) =>
                    Buffer.compare(key, r.start) >= 0 && (r.end === null || Buffer.compare(key, r.end) < 0),
                );
                expect(inside).toBe(wanted);
              }
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("the suffix is the separator and zero-padded shard digits (text), one byte (binary)", () => {
    const text = compileSchema(spec(LAYOUTS[0]!, ENDINGS[0]!, false, { count: 16 }));
    expect(text.encode({ tenant: "acme", item: "x" }, 7).toString()).toBe("acme#x#07");
    const binary = compileSchema(spec(LAYOUTS[2]!, ENDINGS[1]!, false, { count: 4 }));
    expect([...binary.encode({ tenant: "a", item: 1 }, 3)]).toEqual([0x61, 0, 1, 0, 1, 3]);
  });

  it("a sharded row needs a shard in range; an unsharded row takes none", () => {
    const schema = compileSchema(
      spec(LAYOUTS[0]!, ENDINGS[0]!, false, { count: 4, entities: [{ tenant: "hot" }] }),
    );
    expect(() => schema.encode({ tenant: "hot", item: "x" })).toThrow(WriteShardError);
    expect(() => schema.encode({ tenant: "hot", item: "x" }, 4)).toThrow(/0\.\.3/);
    expect(() => schema.encode({ tenant: "cold", item: "x" }, 0)).toThrow(WriteShardError);
    expect(() => schema.decode(Buffer.from("cold#x#01"))).toThrow(
      expect.objectContaining({ name: "KeyDecodeError", problem: "unexpected-bytes", at: 6 }),
    );
    expect(() => schema.decode(Buffer.from("hot#x"))).toThrow(
      expect.objectContaining({ name: "KeyDecodeError", problem: "bad-shard", at: 5 }),
    );
  });
});

describe("writeShards validation", () => {
  const base = spec(LAYOUTS[0]!, ENDINGS[0]!, false);
  const failure = (writeShards: unknown, over: Partial<SchemaSpec> = {}) => {
    try {
      compileSchema({ ...base, ...over, writeShards } as SchemaSpec);
    } catch (error) {
      expect(error).toBeInstanceOf(SchemaError);
      return { path: (error as SchemaError).path, allowed: (error as SchemaError).allowed };
    }
    throw new Error("compiled");
  };

  it("names the field, value or key that is wrong", () => {
    expect(failure({ count: 1 }).path).toBe("writeShards.count");
    expect(failure({ count: 257 }).path).toBe("writeShards.count");
    expect(failure({ count: 2.5 }).path).toBe("writeShards.count");
    expect(failure({ count: 4, shards: 2 })).toEqual({
      path: "writeShards.shards",
      allowed: ["count", "entities"],
    });
    expect(failure({ count: 4, entities: [{ device: "x" }] }).path).toBe("writeShards.entities[0].device");
    expect(failure({ count: 4, entities: [{ item: "x" }] }).path).toBe("writeShards.entities[0]");
    expect(failure({ count: 4, entities: [{}] }).path).toBe("writeShards.entities[0]");
    expect(failure({ count: 4, entities: [] }).path).toBe("writeShards.entities");
  });

  it("checks entity values against the field's codec", () => {
    const numbered = spec(LAYOUTS[0]!, ENDINGS[1]!, false);
    expect(failure({ count: 4, entities: [{ tenant: "a", item: "seven" }] }, numbered).path).toBe(
      "writeShards.entities[0].item",
    );
  });

  it("refuses a suffix the key cannot end with", () => {
    const rawLast: Partial<SchemaSpec> = {
      layout: "binary",
      separator: undefined,
      segments: [{ field: "id", codec: { type: "string", raw: true } }],
    };
    expect(failure({ count: 4 }, rawLast).path).toBe("writeShards");
    const phoenix: Partial<SchemaSpec> = { salt: { buckets: 8, hash: "phoenix" } };
    expect(failure({ count: 4 }, phoenix).path).toBe("writeShards");
  });

  it("is part of the fingerprint", () => {
    const plain = compileSchema(base);
    const sharded = compileSchema({ ...base, writeShards: { count: 4 } });
    expect(sharded.fingerprint).not.toBe(plain.fingerprint);
    expect(plain.writeShardCount).toBe(1);
    expect(sharded.writeShardCount).toBe(4);
  });
});

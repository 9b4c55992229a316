import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { QueryError } from "./errors.js";
import { compileSchema, parseSchema } from "./schema.js";
import type { CodecSpec, SchemaSpec } from "./types.js";

const orders = (codec: CodecSpec, layout: "text" | "binary" = "text"): SchemaSpec => ({
  version: 1,
  name: "orders",
  layout,
  ...(layout === "text" ? { separator: "#" } : {}),
  segments: [{ literal: "order" }, { field: "orderId", codec }],
});

const DIGITS_12 = compileSchema(orders({ type: "reversed-uint", width: 12 }));
const BITS_64 = compileSchema(orders({ type: "reversed-uint", bytes: 8 }, "binary"));
const LITERAL = Buffer.byteLength("order#");

describe("a reversed uint", () => {
  it("round-trips every value of its width, in both layouts", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 12 - 1 }), (id) => {
        expect(DIGITS_12.decode(DIGITS_12.encode({ orderId: id })).values.orderId).toBe(id);
      }),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (id) => {
        expect(BITS_64.decode(BITS_64.encode({ orderId: id })).values.orderId).toBe(id);
      }),
    );
    for (const bytes of [1, 2, 4] as const) {
      const schema = compileSchema(orders({ type: "reversed-uint", bytes }, "binary"));
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 2 ** (8 * bytes) - 1 }), (id) => {
          expect(schema.decode(schema.encode({ orderId: id })).values.orderId).toBe(id);
        }),
      );
    }
  });

  it("writes the digits last first, so the text key stays readable", () => {
    expect(DIGITS_12.encode({ orderId: 1000906 }).toString()).toBe("order#609000100000");
    expect(BITS_64.encode({ orderId: 1n }).subarray(5)).toEqual(Buffer.from("8000000000000000", "hex"));
  });

  it("spreads any run of consecutive ids evenly over the key space, where a uint puts them in one place", () => {
    const plain = compileSchema(orders({ type: "uint", width: 12 }));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 11 }), fc.integer({ min: 1, max: 50 }), (start, rounds) => {
        // Ten equal slices of the text key space by the first digit; sixteen of the binary one by the first 4 bits.
        const digits = new Array(10).fill(0);
        const nibbles = new Array(16).fill(0);
        const plainDigits = new Set<number>();
        for (let id = start; id < start + 10 * rounds; id++)
          digits[DIGITS_12.encode({ orderId: id })[LITERAL]! - 48]++;
        for (let id = start; id < start + 16 * rounds; id++)
          nibbles[BITS_64.encode({ orderId: id })[5]! >> 4]++;
        for (let id = start; id < start + 10 * rounds; id++)
          plainDigits.add(plain.encode({ orderId: id })[LITERAL]!);
        expect(digits).toEqual(new Array(10).fill(rounds));
        expect(nibbles).toEqual(new Array(16).fill(rounds));
        // Consecutive uints share their leading digit (two when the run crosses a power of ten).
        expect(plainDigits.size).toBeLessThanOrEqual(2);
      }),
    );
  });

  it("keeps a point read one key, and refuses a range of ids: it is no key range", () => {
    const plan = DIGITS_12.plan({ eq: { orderId: 1000906 } });
    expect(plan.fanout).toBe(1);
    expect(plan.ranges[0]!.start.toString()).toBe("order#609000100000");
    const range = () => DIGITS_12.plan({ range: { field: "orderId", gte: 1000, lt: 2000 } });
    expect(range).toThrow(QueryError);
    try {
      range();
    } catch (error) {
      expect(error).toMatchObject({ name: "QueryError", field: "orderId" });
    }
  });

  it("is declared in YAML and JSON specs, with the width its layout uses", () => {
    const yaml = parseSchema(
      [
        "version: 1",
        "name: orders",
        "layout: text",
        "segments:",
        "  - { literal: order }",
        "  - { field: orderId, codec: { type: reversed-uint, width: 12, bytes: 8 } }",
      ].join("\n"),
    );
    expect(yaml.fields[0]!.codec).toEqual({ type: "reversed-uint", width: 12 });
    const json = parseSchema(JSON.stringify(orders({ type: "reversed-uint" }, "binary")), "json");
    expect(json.fields[0]!.codec).toEqual({ type: "reversed-uint", bytes: 8 });
    expect(json.decode(json.encode({ orderId: 42 })).values.orderId).toBe(42n);
  });
});

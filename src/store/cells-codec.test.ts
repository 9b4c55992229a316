import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeCells, encodeCells } from "./cells-codec.js";

describe("cells codec", () => {
  it("round-trips any cells", () => {
    const cells = fc
      .uniqueArray(fc.tuple(fc.string({ unit: "binary", minLength: 1 }), fc.uint8Array({ maxLength: 300 })), {
        selector: ([qualifier]) => qualifier,
        maxLength: 6,
      })
      .map((entries) => new Map(entries.map(([q, v]) => [q, Buffer.from(v)])));
    fc.assert(
      fc.property(cells, (map) => {
        expect(decodeCells(encodeCells(map))).toEqual(map);
      }),
    );
  });

  it("frames a short cell with two bytes", () => {
    expect(encodeCells(new Map([["v", Buffer.from("abc")]]))).toEqual(
      Buffer.from([1, 1, 0x76, 3, 0x61, 0x62, 0x63]),
    );
  });

  it("rejects truncated or foreign bytes clearly", () => {
    const bytes = encodeCells(new Map([["v", Buffer.alloc(200, 7)]]));
    expect(() => decodeCells(bytes.subarray(0, 10))).toThrow(/truncated/);
    expect(() => decodeCells(Buffer.from([9]))).toThrow(/format version 9/);
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { roundRobinShards, sumInt64Cells } from "./write-shards.js";
import { int64 } from "./write-shards.testsuite.js";

describe("the default shard chooser", () => {
  it("spreads one writer's writes evenly: every shard within one write of the others", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 256 }), fc.integer({ min: 1, max: 2000 }), (count, writes) => {
        const choose = roundRobinShards();
        const perShard = new Array<number>(count).fill(0);
        for (let i = 0; i < writes; i++) perShard[choose(count)]!++;
        expect(Math.max(...perShard) - Math.min(...perShard)).toBeLessThanOrEqual(1);
      }),
      { numRuns: 50 },
    );
  });
});

describe("sumInt64Cells", () => {
  it("adds the shards' 8-byte big-endian counts, negative ones too", () => {
    expect(sumInt64Cells("n", [int64(5), int64(-2), int64(40)]).readBigInt64BE()).toBe(43n);
  });

  it("refuses a value that is not 8 bytes, naming the column", () => {
    expect(() => sumInt64Cells("n", [Buffer.from("12")])).toThrow(
      expect.objectContaining({ name: "Int64CellError", column: "n", bytes: 2 }),
    );
  });
});

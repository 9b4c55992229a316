import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rememberedSortedPositives, sortedPositives, valueAtRank } from "./positive-cells.js";

/** Cells as heatmaps have them: many repeated levels, zeros, and the odd non-finite or negative value. */
const cell = fc.oneof(
  fc.constantFrom(0, -0, 1, 2, 2.5, Number.NaN, Number.POSITIVE_INFINITY, -1),
  fc.double({ min: -1e6, max: 1e12 }),
);
const cells = fc.array(cell, { maxLength: 60 });

const sortedBySort = (values: readonly number[]) =>
  Float64Array.from(values.filter((value) => value > 0)).sort();

describe("positive cells", () => {
  it("are the values above 0, ascending, as filtering and sorting gives them", () => {
    fc.assert(
      fc.property(cells, (values) => {
        expect(sortedPositives(values)).toEqual(sortedBySort(values));
      }),
    );
  });

  it("are sorted once per values array", () => {
    const values = Float64Array.from([3, 0, 1, 2]);
    const first = rememberedSortedPositives(values);
    expect(first).toEqual(Float64Array.from([1, 2, 3]));
    expect(rememberedSortedPositives(values)).toBe(first);
    expect(rememberedSortedPositives(Float64Array.from(values))).not.toBe(first);
  });

  it("give at each rank the value of all lists merged and sorted", () => {
    fc.assert(
      fc.property(
        fc
          .array(cells, { minLength: 1, maxLength: 6 })
          .filter((lists) => lists.some((list) => list.some((value) => value > 0))),
        fc.nat(),
        (lists, seed) => {
          const merged = sortedBySort(lists.flat());
          const rank = seed % merged.length;
          expect(valueAtRank(lists.map(sortedBySort), rank)).toBe(merged[rank]);
        },
      ),
    );
  });

  it("find every rank among ties across lists", () => {
    const lists = [[1, 1, 2, 2, 2], [2, 2, 3], [], [1, 3, 3, 3]].map((list) => Float64Array.from(list));
    const merged = Float64Array.from(lists.flatMap((list) => [...list])).sort();
    expect(merged.map((_, rank) => valueAtRank(lists, rank))).toEqual(merged);
  });

  it("refuse a rank outside the values", () => {
    const lists = [Float64Array.from([1, 2]), Float64Array.from([3])];
    for (const rank of [-1, 3, 0.5, Number.NaN]) {
      expect(() => valueAtRank(lists, rank)).toThrow(RangeError);
    }
    expect(() => valueAtRank([], 0)).toThrow(RangeError);
  });
});

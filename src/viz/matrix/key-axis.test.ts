import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fineBoundaries, mergeColdBins } from "./key-axis.js";
import { keyPrefixer } from "./key-prefix.js";

describe("mergeColdBins", () => {
  it("keeps hot bins in their own rows and merges cold runs", () => {
    const heat = [1, 1, 1, 50, 1, 1, 60, 1];
    expect(
      mergeColdBins(
        heat,
        heat.map(() => false),
        5,
      ),
    ).toEqual([0, 3, 4, 6, 7]);
  });

  it("never merges across a barrier", () => {
    const heat = [1, 1, 1, 1, 1, 1];
    const barriers = [false, false, false, true, false, false];
    expect(mergeColdBins(heat, barriers, 2)).toEqual([0, 3]);
  });

  it("fits any input into maxRows, keeps barriers while they fit, and keeps the hottest bins", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ heat: fc.nat(1000), barrier: fc.boolean() }), { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 1, max: 100 }),
        (bins, maxRows) => {
          const heat = bins.map((bin) => bin.heat);
          const barriers = bins.map((bin) => bin.barrier);
          const starts = mergeColdBins(heat, barriers, maxRows);
          expect(starts[0]).toBe(0);
          expect(starts.length).toBeLessThanOrEqual(maxRows);
          const segments = barriers.filter((barrier, index) => barrier && index > 0).length + 1;
          if (segments <= maxRows) {
            barriers.forEach((barrier, index) => {
              if (barrier && index > 0) expect(starts).toContain(index);
            });
          }
          if (bins.length <= maxRows) expect(starts).toEqual(bins.map((_, index) => index));
        },
      ),
    );
  });
});

describe("fineBoundaries", () => {
  it("starts at the empty key, takes quantiles and every barrier prefix", () => {
    const keys = ["a#1", "a#2", "a#3", "a#4", "b#1", "b#2"].map((key) => Buffer.from(key));
    const boundaries = fineBoundaries(keys, 3, keyPrefixer(), 0).map((key) => key.toString());
    expect(boundaries).toEqual(["", "a#", "a#1", "a#3", "b#", "b#1"]);
  });
});

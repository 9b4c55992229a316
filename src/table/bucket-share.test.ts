import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bucketShare } from "./bucket-share.js";

describe("bucketShare", () => {
  it("is the mean per bucket plus three standard deviations, never more than the limit", () => {
    expect(bucketShare(100, 16)).toBe(14);
    expect(bucketShare(1000, 16)).toBe(87);
    expect(bucketShare(1, 16)).toBe(1);
    expect(bucketShare(100, 1)).toBe(100);
  });

  it("covers the mean and stays within the limit for any limit and bucket count", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 1, max: 4096 }),
        (limit, buckets) => {
          const share = bucketShare(limit, buckets);
          expect(share).toBeGreaterThanOrEqual(Math.min(limit, Math.ceil(limit / buckets)));
          expect(share).toBeLessThanOrEqual(limit);
        },
      ),
    );
  });

  it("refuses a limit or bucket count that is not a whole number ≥ 1, naming it", () => {
    expect(() => bucketShare(0, 4)).toThrow(/limit is 0; allowed: a whole number ≥ 1/);
    expect(() => bucketShare(10, 1.5)).toThrow(/buckets is 1.5; allowed: a whole number ≥ 1/);
  });
});

import { describe, expect, it } from "vitest";
import { median } from "../stats/median.js";
import { bucketSkew } from "./bucket-skew.js";

describe("bucketSkew", () => {
  it("is 1 for even load and the bucket count when one bucket takes all", () => {
    expect(bucketSkew([5, 5, 5, 5])).toEqual({ max: 5, mean: 5, median: 5, skew: 1, hottest: 0 });
    expect(bucketSkew([0, 0, 8, 0])).toMatchObject({ skew: 4, hottest: 2, median: 0 });
  });

  it("handles no buckets and no load", () => {
    expect(bucketSkew([]).skew).toBe(1);
    expect(bucketSkew([0, 0]).skew).toBe(1);
  });

  it("names a bad load", () => {
    expect(() => bucketSkew([1, Number.NaN])).toThrow(
      expect.objectContaining({ name: "BucketLoadError", bucket: 1, load: Number.NaN }),
    );
  });

  it("takes the median of odd and even counts", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});

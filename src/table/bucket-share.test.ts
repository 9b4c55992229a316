import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { binomialTails, bucketShare, SECOND_ROUND_CHANCE } from "./bucket-share.js";

/** P(X ≥ k) for X ~ Binomial(n, p) summed term by term from log-factorials (small n only). */
function directTail(n: number, p: number, k: number): number {
  const logFactorial = (m: number) =>
    Array.from({ length: m }, (_, i) => Math.log(i + 1)).reduce((a, b) => a + b, 0);
  let sum = 0;
  for (let j = Math.max(0, k); j <= n; j++) {
    sum += Math.exp(
      logFactorial(n) - logFactorial(j) - logFactorial(n - j) + j * Math.log(p) + (n - j) * Math.log1p(-p),
    );
  }
  return Math.min(1, sum);
}

describe("binomialTails", () => {
  it("agrees with the tail summed term by term", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 2, max: 512 }),
        fc.integer({ min: 0, max: 300 }),
        (n, buckets, k) => {
          const p = 1 / buckets;
          expect(binomialTails(n, p)(k)).toBeCloseTo(directTail(n, p, k), 10);
        },
      ),
    );
  });

  it("stays finite and falls from 1 to 0 where the terms underflow one by one", () => {
    const tail = binomialTails(10_000_000, 1 / 16);
    expect(tail(0)).toBe(1);
    expect(tail(625_000)).toBeGreaterThan(0.49);
    expect(tail(625_000)).toBeLessThan(0.51);
    expect(tail(10_000_000)).toBe(0);
  });
});

describe("bucketShare", () => {
  it("sends at most one read in a hundred to a second round: 16 rows each at latest-100 over 16 buckets", () => {
    expect(bucketShare(100, 16)).toBe(16);
    expect(bucketShare(1000, 16)).toBe(90);
    expect(bucketShare(100, 64)).toBe(9);
    expect(bucketShare(1, 16)).toBe(1);
    expect(bucketShare(100, 1)).toBe(100);
  });

  it("is the smallest share whose chance of a second round, summed over buckets, is at most 1 %", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 2, max: 4096 }),
        (limit, buckets) => {
          const share = bucketShare(limit, buckets);
          const atLeast = binomialTails(limit, 1 / buckets);
          expect(share).toBeGreaterThanOrEqual(Math.ceil(limit / buckets));
          expect(share).toBeLessThanOrEqual(limit);
          if (share < limit) expect(buckets * atLeast(share)).toBeLessThanOrEqual(SECOND_ROUND_CHANCE);
          if (share > Math.ceil(limit / buckets)) {
            expect(buckets * atLeast(share - 1)).toBeGreaterThan(SECOND_ROUND_CHANCE);
          }
        },
      ),
    );
  });

  it("holds on drawn reads: latest-100 over 16 buckets, rows placed in buckets at random", () => {
    // A fixed-seed generator (xorshift32): the check reads the same 20,000 reads every run.
    let state = 0x9e3779b9;
    const nextBucket = () => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return (state >>> 0) % 16;
    };
    const share = bucketShare(100, 16);
    const reads = 20_000;
    let secondRounds = 0;
    for (let read = 0; read < reads; read++) {
      const held = new Array<number>(16).fill(0);
      for (let row = 0; row < 100; row++) held[nextBucket()]!++;
      if (held.some((count) => count >= share)) secondRounds++;
    }
    expect(secondRounds / reads).toBeLessThanOrEqual(SECOND_ROUND_CHANCE);
    expect(secondRounds).toBeGreaterThan(0);
  });

  it("refuses a limit or bucket count that is not a whole number ≥ 1, naming it", () => {
    expect(() => bucketShare(0, 4)).toThrow(
      expect.objectContaining({ option: "limit", value: 0, allowed: "a whole number ≥ 1" }),
    );
    expect(() => bucketShare(10, 1.5)).toThrow(expect.objectContaining({ option: "buckets", value: 1.5 }));
  });
});

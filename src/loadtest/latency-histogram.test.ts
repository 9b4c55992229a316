import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Histogram, merge, percentile, record, total } from "./latency-histogram.js";

function exactPercentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil((p / 100) * sorted.length) - 1]!;
}

describe("latency histogram", () => {
  it("gives each percentile within one 5 % bucket above the exact one", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.05, max: 60_000, noNaN: true }), { minLength: 1, maxLength: 300 }),
        fc.constantFrom(50, 90, 99, 100),
        (values, p) => {
          const histogram: Histogram = {};
          for (const value of values) record(histogram, value);
          const exact = exactPercentile(values, p);
          const estimate = percentile(histogram, p)!;
          expect(estimate).toBeGreaterThanOrEqual(exact * 0.999);
          expect(estimate).toBeLessThanOrEqual(exact * 1.051);
        },
      ),
    );
  });

  it("merges tasks' histograms into the run's (counts add, percentiles of the union)", () => {
    const a: Histogram = {};
    const b: Histogram = {};
    for (let i = 1; i <= 99; i++) record(a, 1);
    record(b, 500);
    const run = merge(merge({}, a), b);
    expect(total(run)).toBe(100);
    expect(percentile(run, 99)).toBeLessThan(1.1);
    expect(percentile(run, 100)).toBeGreaterThanOrEqual(500);
    expect(percentile({}, 99)).toBeNull();
  });
});

import { describe, expect, it } from "vitest";
import {
  assertEvenDistribution,
  DistributionError,
  distributionReport,
  regularizedGammaQ,
} from "./distribution.js";
import { compileSchema } from "./schema.js";
import type { SaltHash } from "./types.js";

function* devices(count: number) {
  for (let i = 0; i < count; i++)
    yield { tenant: `t${i % 37}`, device: `device-${String(i).padStart(6, "0")}` };
}

const schemaWith = (buckets: number, hash: SaltHash) =>
  compileSchema({
    version: 1,
    name: `fleet-${hash}`,
    layout: "text",
    segments: [
      { field: "tenant", codec: { type: "string" } },
      { field: "device", codec: { type: "string" } },
      { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
    ],
    salt: { buckets, hash },
  });

describe("salt distribution over 100k synthetic entities", () => {
  it.each([
    [16, "xxh32", 1.05],
    [256, "xxh32", 1.25],
    [100, "md5-hex4", 1.15],
  ] as const)("%i buckets with %s stay within max/mean %f", (buckets, hash, maxSkew) => {
    const report = assertEvenDistribution(schemaWith(buckets, hash), devices(100_000), {
      maxSkew,
      minPValue: 0.001,
    });
    expect(report.samples).toBe(100_000);
    expect(report.counts).toHaveLength(buckets);
    expect(report.min).toBeGreaterThan(0);
  });

  it("fails loudly on a skewed salt, with the report", () => {
    const schema = schemaWith(16, "xxh32");
    const oneTenant = Array.from({ length: 1000 }, () => ({ tenant: "t", device: "same" }));
    expect(() => assertEvenDistribution(schema, oneTenant, { maxSkew: 1.5 })).toThrow(
      expect.objectContaining({
        name: "DistributionError",
        problem: "skew",
        limit: 1.5,
        report: expect.objectContaining({ skew: 16, samples: 1000, counts: expect.any(Array) }),
      }),
    );
    try {
      assertEvenDistribution(schema, oneTenant, { maxSkew: 1.5 });
    } catch (error) {
      expect(error).toBeInstanceOf(DistributionError);
      expect((error as DistributionError).report.pValue).toBeLessThan(1e-12);
    }
  });
});

describe("chi-square p-value", () => {
  it("matches known quantiles", () => {
    // χ²(df=1) = 3.841 → p = 0.05; χ²(df=15) = 24.996 → p = 0.05; χ²(df=255) = 293.25 → p = 0.05.
    expect(regularizedGammaQ(0.5, 3.841459 / 2)).toBeCloseTo(0.05, 5);
    expect(regularizedGammaQ(7.5, 24.99579 / 2)).toBeCloseTo(0.05, 5);
    expect(regularizedGammaQ(127.5, 293.2478 / 2)).toBeCloseTo(0.05, 4);
    expect(regularizedGammaQ(2, 0)).toBe(1);
  });

  it("reports a perfectly even spread as p = 1", () => {
    const schema = schemaWith(4, "xxh32");
    const report = distributionReport(schema, []);
    expect(report.samples).toBe(0);
    expect(report.pValue).toBe(1);
  });
});

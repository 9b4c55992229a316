import { describe, expect, it } from "vitest";
import { colorScale, formatValue, PALETTE, scaleUnit } from "./color-scale.js";

describe("colour scale", () => {
  it("runs black to white through purple, red and yellow", () => {
    expect(PALETTE).toHaveLength(101);
    expect(PALETTE[0]).toEqual([0, 0, 0]);
    expect(PALETTE[100]).toEqual([255, 255, 255]);
    expect(PALETTE[50]).toEqual([214, 38, 38]);
  });

  it("clips at the percentile so one outlier does not darken the rest", () => {
    const values = [...Array.from({ length: 999 }, (_, index) => 1 + (index % 100)), 1e9];
    const scale = colorScale(values, "ops", { scale: "linear", clipPercentile: 99 });
    expect(scale.high).toBeLessThanOrEqual(100);
    expect(scale.clipped).toBe(true);
    expect(scaleUnit(scale, 1e9)).toBe(1);
    expect(scaleUnit(scale, 50)).toBeGreaterThan(0.4);
    expect(scaleUnit(scale, 0)).toBe(0);
  });

  it("keeps CPU absolute and spaces a log scale by ratios", () => {
    expect(colorScale([0.2, 0.3], "cpu")).toMatchObject({ kind: "linear", low: 0, high: 1, clipped: false });
    const log = colorScale([1, 10, 100, 1000], "ops", { clipPercentile: 100 });
    expect(scaleUnit(log, 10)).toBeCloseTo(1 / 3);
    expect(() => colorScale([1], "ops", { clipPercentile: 0 })).toThrow(/clipPercentile 0/);
  });

  it("formats values compactly per metric", () => {
    expect(formatValue(1234, "ops")).toBe("1.23k");
    expect(formatValue(0.93, "cpu")).toBe("93%");
    expect(formatValue(12.5, "latency")).toBe("12.5ms");
  });
});

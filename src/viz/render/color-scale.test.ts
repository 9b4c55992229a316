import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { HeatMatrix, HeatMetric } from "../matrix/heat-matrix.js";
import { matrixFromSteps } from "../matrix/steps-matrix.js";
import { colorScale, formatValue, PALETTE, scaleTicks, scaleUnit, sharedScale } from "./color-scale.js";

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

  it("one load summed in two orders (a span too narrow for floating point) has a colour: the top", () => {
    const scale = colorScale([12_879.999999999996, 12_880], "ops", { clipPercentile: 100 });
    expect(scaleUnit(scale, 12_879.999999999998)).toBe(1);
    expect(PALETTE[Math.round(scaleUnit(scale, 12_879.999999999998) * 100)]).toBeDefined();
  });

  it("formats values compactly per metric", () => {
    expect(formatValue(1234, "ops")).toBe("1.23k");
    expect(formatValue(0.93, "cpu")).toBe("93%");
    expect(formatValue(12.5, "latency")).toBe("12.5ms");
  });

  it("labels the bar's top, middle and bottom, and says when cells exceed the top", () => {
    const log = colorScale([10, 100, 1000, 1e6], "ops", { clipPercentile: 75 });
    expect(scaleTicks(log, "ops")).toEqual([
      { unit: 1, label: ">=1k" },
      { unit: 0.5, label: "100" },
      { unit: 0.04, label: "10" },
    ]);
    expect(scaleTicks(colorScale([0.5], "cpu"), "cpu").map((tick) => tick.label)).toEqual([
      "100%",
      "50%",
      "0%",
    ]);
  });

  it("shares one scale across the designs of a run", () => {
    const steps = (writesPerS: number) =>
      Array.from({ length: 10 }, (_, t) => ({
        t,
        durationS: 1,
        ranges: [
          { start: Buffer.alloc(0), end: null, readsPerS: 0, writesPerS, scannedRowsPerS: 0, bytesPerS: 0 },
        ],
      }));
    const incident = matrixFromSteps(steps(40_000));
    const fix = matrixFromSteps(steps(2_000));
    const shared = sharedScale([incident, fix], "writes", { clipPercentile: 100 });
    expect(shared.high).toBe(40_000);
    expect(scaleUnit(shared, 2_000)).toBeLessThan(1);
    // Alone, each design's busiest cell is white: the fix would look as hot as the incident.
    expect(scaleUnit(sharedScale([fix], "writes", { clipPercentile: 100 }), 2_000)).toBe(1);
  });

  it("shares the scale the designs' cells give when put in one list", () => {
    const matrixOf = (values: Float64Array, metric: HeatMetric): HeatMatrix => ({
      time: { startS: 0, columnS: 1, columns: values.length, epoch: false },
      rows: [{ start: Buffer.alloc(0), end: null, labels: [], keyShare: 1 }],
      values: { [metric]: values },
      barrierLevel: -1,
      labelSeparator: "#",
    });
    const cell = fc.oneof(
      fc.constantFrom(0, 1, 3, 0.93, 1.2, 1e4),
      fc.double({ min: 0, max: 1e9, noNaN: true }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.array(cell, { maxLength: 40 }), { minLength: 1, maxLength: 5 }),
        fc.constantFrom<HeatMetric>("ops", "writes", "cpu"),
        fc.constantFrom("log" as const, "linear" as const),
        fc.oneof(fc.constant(99), fc.double({ min: 0.5, max: 100, noNaN: true })),
        (designs, metric, scale, clipPercentile) => {
          const matrices = designs.map((cells) => matrixOf(Float64Array.from(cells), metric));
          const options = { scale, clipPercentile };
          expect(sharedScale(matrices, metric, options)).toEqual(colorScale(designs.flat(), metric, options));
          // Again: the second time reads the sorted cells it remembered.
          expect(sharedScale(matrices, metric, options)).toEqual(colorScale(designs.flat(), metric, options));
        },
      ),
    );
  });
});

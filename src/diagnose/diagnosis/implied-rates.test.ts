import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MODEL_CONSTANTS } from "../../sim/cluster/model-constants.js";
import { hotTablet } from "../decode/fixtures.testsuite.js";
import { checkCarried, peakHeat, writesForCpu } from "./implied-rates.js";

const key = (text: string) => Buffer.from(text);

describe("peakHeat", () => {
  it("takes one instant, never windows summed: a tail tablet hot in four windows is one tablet's load", () => {
    const tail = [0, 1, 2, 3].map((window) => hotTablet(key("t9"), Buffer.alloc(0), 91, window));
    const peak = peakHeat(tail)!;
    expect(peak.totalCpuPercent).toBe(91);
    expect(peak.ranges).toHaveLength(1);
  });

  it("adds the ranges hot at the same time, each at its CPU then", () => {
    const peak = peakHeat([
      hotTablet(key("a"), key("b"), 40, 0),
      hotTablet(key("c"), key("d"), 70, 1),
      hotTablet(key("a"), key("b"), 60, 1),
      hotTablet(key("e"), key("f"), 90, 2),
    ])!;
    expect(peak.totalCpuPercent).toBe(130);
    expect(peak.at).toEqual(hotTablet(key("a"), key("b"), 0, 1).startTime);
    expect(peak.ranges.map((range) => range.cpuPercent)).toEqual([70, 60]);
    expect(peakHeat([])).toBeUndefined();
  });

  it("is never more than the windows summed, nor less than the hottest tablet", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            range: fc.integer({ min: 0, max: 5 }),
            window: fc.integer({ min: 0, max: 5 }),
            cpu: fc.integer({ min: 1, max: 100 }),
          }),
          { minLength: 1, maxLength: 30 },
        ),
        (entries) => {
          const tablets = entries.map(({ range, window, cpu }) =>
            hotTablet(key(`r${range}`), key(`r${range}z`), cpu, window),
          );
          const peak = peakHeat(tablets)!.totalCpuPercent;
          expect(peak).toBeLessThanOrEqual(entries.reduce((sum, entry) => sum + entry.cpu, 0));
          expect(peak).toBeGreaterThanOrEqual(Math.max(...entries.map((entry) => entry.cpu)));
        },
      ),
    );
  });
});

describe("checkCarried", () => {
  it("refuses a peak the cluster's nodes could not carry, with the arithmetic", () => {
    const sixteen = Array.from({ length: 16 }, (_, i) => hotTablet(key(`s${i}`), key(`s${i}z`), 82));
    const peak = peakHeat(sixteen)!;
    expect(() => checkCarried(peak, 3)).toThrow(
      expect.objectContaining({
        name: "DiagnoseRefusal",
        code: "peak-exceeds-nodes",
        details: { at: peak.at.toISOString(), hotTablets: 16, totalCpuPercent: 1312, nodes: 3 },
        forcible: false,
      }),
    );
    expect(() => checkCarried(peak, 14)).not.toThrow();
  });
});

describe("writesForCpu", () => {
  it("is a node's published writes for 1 KB rows at 100 %", () => {
    expect(writesForCpu(100, "ssd", 1024)).toBeCloseTo(MODEL_CONSTANTS.ssdWritesPerS.value);
    expect(writesForCpu(50, "hdd", 1024)).toBeCloseTo(MODEL_CONSTANTS.hddWritesPerS.value / 2);
  });
});

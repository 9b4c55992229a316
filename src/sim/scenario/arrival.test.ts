import { describe, expect, it } from "vitest";
import { arrivalMultiplier, meanMultiplier } from "./arrival.js";

const start = Date.parse("2026-01-01T00:00:00Z");
const meanOver = (arrival: Parameters<typeof meanMultiplier>[0], seconds: number) =>
  meanMultiplier(arrival, 0, seconds, start);

describe("arrival patterns", () => {
  it("keep the mean rate: steady, bursts and diurnal all average 1", () => {
    expect(meanOver({ kind: "steady" }, 3600)).toBe(1);
    expect(meanOver({ kind: "burst", every: 300, window: 30 }, 3600)).toBeCloseTo(1, 6);
    expect(meanOver({ kind: "diurnal", amplitude: 0.8, peakHour: 14 }, 86400)).toBeCloseTo(1, 3);
  });

  it("put a burst's whole period of load into its window", () => {
    const burst = { kind: "burst", every: 300, window: 30 } as const;
    expect(arrivalMultiplier(burst, 10, start)).toBe(10);
    expect(arrivalMultiplier(burst, 299, start)).toBe(0);
    expect(arrivalMultiplier(burst, 310, start)).toBe(10);
    // A step longer than the window still carries the right load.
    expect(meanMultiplier(burst, 0, 60, start)).toBeCloseTo(5);
  });

  it("peak a diurnal pattern at its hour", () => {
    const diurnal = { kind: "diurnal", amplitude: 0.5, peakHour: 14 } as const;
    expect(arrivalMultiplier(diurnal, 14 * 3600, start)).toBeCloseTo(1.5);
    expect(arrivalMultiplier(diurnal, 2 * 3600, start)).toBeCloseTo(0.5);
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { arrivalMultiplier } from "./arrival.js";
import { type CycleGroup, planRun } from "./cycle.js";

const midnight = Date.parse("2026-01-01T00:00:00Z");
const WARM_UP_S = 1800;
const hourlyJob: CycleGroup = { rowsPerS: 6000, arrival: { kind: "burst", every: 3600, window: 120 } };
const daily: CycleGroup = { rowsPerS: 100000, arrival: { kind: "diurnal", amplitude: 0.8, peakHour: 14 } };
const steadyReads: CycleGroup = { rowsPerS: 2000, arrival: { kind: "steady" } };

const wallClock = (startMs: number, plan: ReturnType<typeof planRun>, periodS: number) =>
  (((startMs / 1000 + plan.offsetS) % periodS) + periodS) % periodS;

describe("planRun", () => {
  it("runs a steady load from its start and judges it after the warm-up", () => {
    const plan = planRun([steadyReads], midnight, 3600, WARM_UP_S);
    expect(plan).toEqual({
      offsetS: 0,
      durationS: 3600,
      judged: [{ fromS: WARM_UP_S, toS: 3600 }],
      cycle: null,
    });
  });

  it("runs a cycle that never leaves its peak as a steady load", () => {
    const flat: CycleGroup = { rowsPerS: 1000, arrival: { kind: "diurnal", amplitude: 0, peakHour: 14 } };
    expect(planRun([flat], midnight, 3600, WARM_UP_S)).toEqual(
      planRun([steadyReads], midnight, 3600, WARM_UP_S),
    );
  });

  it.each([
    ["an hourly burst", [hourlyJob, steadyReads], 3600],
    ["a diurnal curve", [daily], 86400],
    ["a burst on a diurnal curve", [hourlyJob, daily], 86400],
  ] as const)("places %s's run on the same wall-clock window from any start", (_, groups, periodS) => {
    const reference = planRun(groups, midnight, 3600, WARM_UP_S);
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), (fraction) => {
        const startMs = midnight + Math.round(fraction * periodS) * 1000;
        const plan = planRun(groups, startMs, 3600, WARM_UP_S);
        expect(plan.offsetS).toBeGreaterThanOrEqual(0);
        expect(wallClock(startMs, plan, periodS)).toBeCloseTo(wallClock(midnight, reference, periodS), 6);
        expect(plan.durationS).toBe(reference.durationS);
        expect(plan.judged).toEqual(reference.judged);
      }),
      { numRuns: 40 },
    );
  });

  it.each([
    ["an hourly burst", [hourlyJob, steadyReads]],
    [
      "a burst every 5 minutes",
      [{ rowsPerS: 800, arrival: { kind: "burst", every: 300, window: 30 } } as const],
    ],
    ["a diurnal curve", [daily]],
  ] as const)(
    "judges %s only at its peak, after the warm-up, with whole peaks inside the run",
    (_, groups) => {
      const plan = planRun(groups, midnight, 3600, WARM_UP_S);
      const rowsAt = (runS: number) =>
        groups.reduce(
          (sum, group) =>
            sum + group.rowsPerS * arrivalMultiplier(group.arrival, plan.offsetS + runS, midnight),
          0,
        );
      expect(plan.cycle).not.toBeNull();
      expect(plan.judged.length).toBeGreaterThan(0);
      for (const span of plan.judged) {
        expect(span.fromS).toBeGreaterThanOrEqual(WARM_UP_S);
        expect(span.toS).toBeLessThanOrEqual(plan.durationS);
        for (let s = span.fromS; s < span.toS; s += 1)
          expect(rowsAt(s + 0.5)).toBeGreaterThanOrEqual(0.99 * plan.cycle!.peakRowsPerS);
      }
    },
  );

  it("reads a burst's peak and trough and how long its peak lasts", () => {
    const cycle = planRun([hourlyJob, steadyReads], midnight, 3600, WARM_UP_S).cycle!;
    expect(cycle.periodS).toBe(3600);
    expect(cycle.peakLastsS).toBe(120);
    expect(cycle.peakRowsPerS).toBeCloseTo(6000 * 30 + 2000);
    expect(cycle.troughRowsPerS).toBeCloseTo(2000);
  });
});

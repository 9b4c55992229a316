import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CycleSummary } from "../../sim/results/results.js";
import { cyclicJob } from "../../sim/scenario/cyclic-job.fixture.js";
import { adviseScenario } from "../judge/advise.js";
import { judged } from "../judge/judged.fixture.js";
import { monthlyCostCell } from "../report/report-sizing.js";
import { autoscaledRange } from "./autoscaled-range.js";
import { dollars, monthlyCost } from "./cost.js";

const cycleOf = (peak: number, trough: number, cpuTarget: number, followsPeak = true): CycleSummary => ({
  periodS: 86400,
  offsetS: 0,
  peakLastsS: 3600,
  judgedS: 3600,
  averageNodeCpu: { peak, trough },
  // A day whose hours' busiest seconds run from the trough (02:00) to the peak (14:00) and back.
  hourlyPeakNodeCpu: Array.from(
    { length: 24 },
    (_, hour) => trough + ((peak - trough) * (1 + Math.cos((2 * Math.PI * (hour - 14)) / 24))) / 2,
  ),
  autoscaler: {
    cpuTarget,
    minNodes: Math.max(1, Math.ceil((trough * 12) / cpuTarget - 1e-9)),
    maxNodes: Math.max(1, Math.ceil((peak * 12) / cpuTarget - 1e-9)),
    reactionS: 600,
    followsPeak,
  },
});

describe("the autoscaled range of a cyclic load", () => {
  const scenario = cyclicJob(1000, { kind: "diurnal", amplitude: 0.8, peakHour: 14 });

  it("is the summary's autoscaler at growth 1, grows with the demand, keeps the storage nodes, and prices each end", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 3, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0.1, max: 0.8, noNaN: true }),
        fc.double({ min: 1, max: 4, noNaN: true }),
        fc.integer({ min: 1, max: 40 }),
        (peak, troughShare, cpuTarget, growth, storageNodes) => {
          const cycle = cycleOf(peak, peak * troughShare, cpuTarget);
          const bytes = 1e12;
          const today = autoscaledRange(scenario, cycle, 12, { storage: 1, storedBytes: bytes }, "ssd", 1);
          expect([today.minNodes, today.maxNodes]).toEqual([
            cycle.autoscaler.minNodes,
            cycle.autoscaler.maxNodes,
          ]);
          const grown = autoscaledRange(
            scenario,
            cycle,
            12,
            { storage: storageNodes, storedBytes: bytes * growth },
            "ssd",
            growth,
          );
          expect(grown.minNodes).toBeGreaterThanOrEqual(Math.max(today.minNodes, storageNodes));
          expect(grown.maxNodes).toBeGreaterThanOrEqual(Math.max(today.maxNodes, grown.minNodes));
          // Enough nodes to hold the peak's grown demand at the target, and one fewer would not (unless storage sets it).
          const demand = (peak * 12 * growth) / cpuTarget;
          expect(grown.maxNodes).toBeGreaterThanOrEqual(demand - 1e-6);
          if (grown.maxNodes > Math.max(1, storageNodes, grown.minNodes))
            expect(grown.maxNodes - 1).toBeLessThan(demand);
          expect(grown.minCost).toEqual(monthlyCost(scenario, grown.minNodes, "ssd", bytes * growth));
          expect(grown.maxCost).toEqual(monthlyCost(scenario, grown.maxNodes, "ssd", bytes * growth));
          expect(grown.minCost.total).toBeLessThanOrEqual(grown.maxCost.total);
          // Billed hour by hour, a month costs between its ends; a peak the autoscaler cannot follow, the top.
          expect(grown.billedCost.total).toBeGreaterThanOrEqual(grown.minCost.total - 1e-6);
          expect(grown.billedCost.total).toBeLessThanOrEqual(grown.maxCost.total + 1e-6);
          const unfollowed = autoscaledRange(
            scenario,
            cycleOf(peak, peak * troughShare, cpuTarget, false),
            12,
            { storage: 1, storedBytes: bytes },
            "ssd",
            1,
          );
          expect(unfollowed.billedCost).toEqual(unfollowed.maxCost);
        },
      ),
    );
  });

  it("prices every design of a diurnal load between the autoscaler's ends, the same from any start", () => {
    const diurnal = { kind: "diurnal", amplitude: 0.8, peakHour: 14 };
    const advise = (start: string) =>
      adviseScenario(cyclicJob(100000, diurnal, start), { candidates: "scenario", exhaustive: true });
    const midnight = advise("2026-01-01T00:00:00Z");
    const afternoon = advise("2026-01-01T13:30:00Z");
    expect(afternoon.recommended?.candidate.name).toBe(midnight.recommended?.candidate.name);
    expect(afternoon.recommended?.nodes).toBe(midnight.recommended?.nodes);
    expect(afternoon.needsMoreNodes).toBe(midnight.needsMoreNodes);
    const plan = (advice: typeof midnight) =>
      advice.candidates.map(judged).map((each) => ({
        name: each.candidate.name,
        nodes: each.nodes,
        failures: each.failures.map((failure) => failure.target),
        sizing: each.sizing,
        autoscaled: [each.autoscaled?.minNodes, each.autoscaled?.maxNodes],
      }));
    expect(plan(afternoon)).toEqual(plan(midnight));
    for (const each of midnight.candidates.filter((candidate) => candidate.kind === "judged")) {
      const range = each.autoscaled!;
      const autoscaler = each.result.summary.cycle!.autoscaler;
      expect([range.minNodes, range.maxNodes]).toEqual([autoscaler.minNodes, autoscaler.maxNodes]);
      // The peak (180,000 writes/s of 1 KB) needs more nodes than the trough (20,000/s).
      expect(range.minNodes).toBeLessThan(range.maxNodes);
      expect(range.followsPeak).toBe(true);
    }
  }, 300_000);

  it("prices a burst shorter than the autoscaler's reaction at the peak's nodes: provision for the peak", () => {
    // An hourly 2-minute job at 180,000 writes/s of 1 KB: 12.9 nodes of demand, gone before added nodes help.
    const burst = cyclicJob((180000 * 120) / 3600, { kind: "burst", every: 3600, window: 120 });
    const advice = adviseScenario(burst, { candidates: "scenario", exhaustive: true });
    for (const each of advice.candidates.filter((candidate) => candidate.kind === "judged")) {
      const range = each.autoscaled!;
      expect(range.followsPeak).toBe(false);
      expect(range.peakLastsS).toBeLessThan(range.reactionS);
      expect(range.maxNodes).toBeGreaterThan(12);
      expect(monthlyCostCell(each)).toBe(dollars(range.maxCost.total));
    }
  }, 300_000);
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { DesignResult } from "../../sim/results/results.js";
import type { DesignSizing } from "../size/sizing.js";
import type { CandidateDesign, KeyChange } from "./candidates.js";
import { lossReason } from "./loss-reason.js";
import {
  capacityBound,
  cheapestOf,
  type JudgedCandidate,
  meetsTargets,
  simplestMeeting,
  simplicityOrder,
} from "./recommend.js";
import type { DesignScores, TargetFailure } from "./score.js";

function evaluated(
  name: string,
  complexity: number,
  options: {
    buckets?: number;
    hottestCpu?: number;
    failures?: TargetFailure[];
    nodesNeeded?: number | null;
    fanout?: number;
    clientCores?: number;
  },
): JudgedCandidate {
  const changes: KeyChange[] = options.buckets
    ? [{ kind: "salt", buckets: options.buckets, fields: ["id"] }]
    : [];
  const candidate = {
    name,
    description: name,
    changes,
    complexity,
    design: {},
  } as unknown as CandidateDesign;
  const scores = {
    nodes: 12,
    costPerHour: 7.8,
    buckets: options.buckets ?? 1,
    hottestCpu: options.hottestCpu ?? 0.5,
    reads: [
      {
        name: "latest",
        kind: "latest",
        perS: 1,
        fanout: options.fanout ?? 1,
        p99Ms: 5,
        rowsReadPerRead: 1,
        shedShare: 0,
      },
    ],
    nodesNeeded: options.nodesNeeded === undefined ? 12 : options.nodesNeeded,
    clientCores: { cores: options.clientCores ?? 1, reads: [], cpuMsPerCall: 0.2, cpuUsPerRow: 10 },
  } as unknown as DesignScores;
  const reads = [
    {
      name: "latest",
      kind: "latest" as const,
      perS: 1,
      status: "simulated" as const,
      fanout: options.fanout ?? 1,
    },
  ];
  return {
    kind: "judged",
    candidate,
    nodes: 12,
    result: {} as DesignResult,
    scores,
    sizing: {} as DesignSizing,
    reads,
    failures: options.failures ?? [],
  };
}

const hot: TargetFailure = { target: "hottestCpu", cpu: 1.5, limit: 0.9 };

describe("client cores in the simplicity order", () => {
  it("passes over a smaller change whose reads need a doubling more application cores past the floor", () => {
    // 150 cores against 40: the example.
    const fanOut = evaluated("salt-64-unbound", 1, { buckets: 64, clientCores: 150 });
    const bound = evaluated("promote-and-salt", 2, { buckets: 64, clientCores: 40 });
    expect(simplestMeeting([fanOut, bound])?.candidate.name).toBe("promote-and-salt");
    expect(lossReason(fanOut, bound)).toMatchObject({
      code: "more-client-cores",
      missed: [],
      loser: 150,
      chosen: 40,
    });
  });

  it("leaves the order to the key change while both fit the floor or sit within a doubling", () => {
    const small = evaluated("salt-16", 1, { buckets: 16, clientCores: 12 });
    const promoted = evaluated("promote", 2, { buckets: 16, clientCores: 2 });
    expect(simplestMeeting([small, promoted])?.candidate.name).toBe("salt-16");
    const a = evaluated("a", 1, { buckets: 16, clientCores: 40 });
    const b = evaluated("b", 2, { buckets: 16, clientCores: 33 });
    expect(simplestMeeting([a, b])?.candidate.name).toBe("a");
  });

  it("never prefers the design needing more client cores by a doubling, whatever else differs", () => {
    const spec = fc.record({
      complexity: fc.integer({ min: 0, max: 8 }),
      buckets: fc.constantFrom(1, 16, 64),
      clientCores: fc.double({ min: 0, max: 1000, noNaN: true }),
    });
    fc.assert(
      fc.property(spec, spec, (x, y) => {
        const a = evaluated("a", x.complexity, x);
        const b = evaluated("b", y.complexity, y);
        if (x.clientCores > 2 * Math.max(16, y.clientCores)) expect(simplicityOrder(a, b)).toBeGreaterThan(0);
      }),
    );
  });
});

describe("the recommendation", () => {
  it("is never a design that misses a target when another meets them (any mix of candidates)", () => {
    const arbitraryCandidate = fc.record({
      complexity: fc.integer({ min: 0, max: 8 }),
      buckets: fc.constantFrom(1, 8, 16, 24, 256),
      hottestCpu: fc.double({ min: 0.1, max: 9, noNaN: true }),
      fanout: fc.integer({ min: 1, max: 32 }),
    });
    fc.assert(
      fc.property(fc.array(arbitraryCandidate, { minLength: 1, maxLength: 12 }), (specs) => {
        const all = specs.map((spec, index) =>
          evaluated(`c${index}`, spec.complexity, {
            ...spec,
            failures: spec.hottestCpu > 0.9 ? [hot] : [],
          }),
        );
        const chosen = simplestMeeting(all);
        const anyMeets = all.some(meetsTargets);
        expect(chosen !== undefined).toBe(anyMeets);
        if (!chosen) return;
        expect(chosen.scores.hottestCpu).toBeLessThanOrEqual(0.9);
        for (const other of all.filter(meetsTargets))
          expect(simplicityOrder(chosen, other)).toBeLessThanOrEqual(0);
      }),
    );
  });

  it("names a cheapest design only when it costs less per month than the simplest, and none eligible costs less", () => {
    const arbitraryCandidate = fc.record({
      complexity: fc.integer({ min: 0, max: 8 }),
      hottestCpu: fc.double({ min: 0.1, max: 3, noNaN: true }),
      monthly: fc.option(fc.integer({ min: 100, max: 100_000 }), { nil: undefined }),
      unservable: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(arbitraryCandidate, { minLength: 1, maxLength: 12 }), (specs) => {
        const all = specs.map((spec, index) => {
          const each = evaluated(`c${index}`, spec.complexity, {
            ...spec,
            failures: [
              ...(spec.hottestCpu > 0.9 ? [hot] : []),
              ...(spec.unservable
                ? [{ target: "read" as const, read: "latest", reason: "not a key range" }]
                : []),
            ],
          });
          return spec.monthly === undefined
            ? each
            : { ...each, cost: { nodes: spec.monthly, storage: 0, total: spec.monthly } };
        });
        const simplest = simplestMeeting(all);
        const cheapest = cheapestOf(all, simplest);
        if (!cheapest) return;
        expect(simplest).toBeDefined();
        expect(cheapest.cost!.total).toBeLessThan(simplest!.cost!.total);
        expect(cheapest.failures.every((failure) => failure.target !== "read")).toBe(true);
        for (const other of all.filter((each) => each.cost && (meetsTargets(each) || capacityBound(each))))
          expect(cheapest.cost!.total).toBeLessThanOrEqual(other.cost!.total);
      }),
    );
  });

  it("orders by complexity, then buckets, then read fan-out", () => {
    const asIs = evaluated("as-is", 0, {});
    const salt16 = evaluated("salt-16", 3, { buckets: 16 });
    const salt64 = evaluated("salt-64", 3, { buckets: 64 });
    const wide = evaluated("salt-16-wide", 3, { buckets: 16, fanout: 16 });
    expect([wide, salt64, salt16, asIs].sort(simplicityOrder).map((e) => e.candidate.name)).toEqual([
      "as-is",
      "salt-16",
      "salt-16-wide",
      "salt-64",
    ]);
    expect(lossReason(salt64, salt16)).toMatchObject({ code: "more-buckets", loser: 64, chosen: 16 });
    expect(lossReason(salt16, asIs)).toMatchObject({ code: "bigger-change", loser: 3, chosen: 0 });
    expect(lossReason(wide, salt16)).toMatchObject({ code: "wider-fan-out", loser: 16, chosen: 1 });
  });

  it("knows which designs more nodes can fix: spread load, missing only CPU targets", () => {
    const rangeHot = evaluated("as-is", 0, { failures: [hot], nodesNeeded: null });
    const unservable = evaluated("promote-x", 2, {
      failures: [{ target: "read", read: "latest", reason: "not a key range" }],
    });
    const average = evaluated("salt-24", 3, {
      buckets: 24,
      nodesNeeded: 14,
      failures: [
        { target: "averageCpu", cpu: 0.8, limit: 0.7 },
        { target: "shed", share: 0.03, limit: 0.01 },
      ],
    });
    expect([rangeHot, unservable, average].map(capacityBound)).toEqual([false, false, true]);
    expect(lossReason(rangeHot, average)).toMatchObject({
      code: "more-nodes-do-not-help",
      missed: ["hottestCpu"],
      failures: [hot],
    });
    expect(lossReason(average, undefined)).toMatchObject({
      code: "needs-more-nodes",
      missed: ["averageCpu", "shed"],
      failures: average.failures,
      nodesNeeded: 14,
    });
    expect(lossReason(unservable, average)).toMatchObject({
      code: "misses-targets",
      missed: ["read"],
      failures: [{ target: "read", read: "latest", reason: "not a key range" }],
    });
  });

  it("says a design that meets the targets today loses at the stated growth, and where it breaks", () => {
    const today = evaluated("salt-2", 3, { buckets: 2 });
    const salt2: JudgedCandidate = {
      ...today,
      headroom: {
        growth: 2,
        writesPerS: 40_000,
        scores: today.scores,
        failures: [hot],
        breaksAt: { writesPerS: 26_100, target: "hottestCpu" },
      },
    };
    expect(lossReason(salt2, undefined)).toMatchObject({
      code: "misses-at-growth",
      missed: ["hottestCpu"],
      failures: [hot],
      growth: 2,
      writesPerS: 40_000,
      breaksAtWritesPerS: 26_100,
    });
  });
});

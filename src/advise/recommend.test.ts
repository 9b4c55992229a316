import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Candidate, Change } from "./candidates.js";
import {
  type Evaluated,
  fewestNodesCandidate,
  lossReason,
  meets,
  simplestMeeting,
  simplicityOrder,
} from "./recommend.js";
import type { Failure, Scores } from "./score.js";

function evaluated(
  name: string,
  complexity: number,
  options: {
    buckets?: number;
    hottestCpu?: number;
    failures?: Failure[];
    nodesNeeded?: number | null;
    fanout?: number;
  },
): Evaluated {
  const changes: Change[] = options.buckets
    ? [{ kind: "salt", buckets: options.buckets, fields: ["id"] }]
    : [];
  const candidate = { name, description: name, changes, complexity, design: {} } as unknown as Candidate;
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
  } as Scores;
  return { candidate, nodes: 12, scores, failures: options.failures ?? [] };
}

const hot: Failure = { target: "hottestCpu", text: "hottest node 150% > 90%" };

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
        const anyMeets = all.some(meets);
        expect(chosen !== undefined).toBe(anyMeets);
        if (!chosen) return;
        expect(chosen.scores!.hottestCpu).toBeLessThanOrEqual(0.9);
        for (const other of all.filter(meets)) expect(simplicityOrder(chosen, other)).toBeLessThanOrEqual(0);
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
    expect(lossReason(salt64, salt16)).toMatch(/more salt buckets \(64 vs 16\)/);
    expect(lossReason(salt16, asIs)).toMatch(/bigger change \(complexity 3 vs 0\)/);
  });

  it("falls back to the design needing the fewest nodes, only among those more nodes can fix", () => {
    const rangeHot = evaluated("as-is", 0, { failures: [hot], nodesNeeded: null });
    const warmUp = evaluated("salt-8", 3, {
      buckets: 8,
      nodesNeeded: 13,
      failures: [{ target: "warmUpCpu", text: "warms up at 125%" }],
    });
    const average = evaluated("salt-24", 3, {
      buckets: 24,
      nodesNeeded: 14,
      failures: [{ target: "averageCpu", text: "average 80% > 70%" }],
    });
    expect(fewestNodesCandidate([rangeHot, warmUp, average])?.candidate.name).toBe("salt-24");
    expect(lossReason(rangeHot, average)).toMatch(/more nodes would not fix it/);
    expect(lossReason(average, undefined)).toBe("average 80% > 70%; would need 14 nodes");
  });
});

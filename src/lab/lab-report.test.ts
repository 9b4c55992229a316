import { describe, expect, it } from "vitest";
import type { EvaluatedCandidate } from "../advise/judge/recommend.js";
import type { TargetFailure } from "../advise/judge/score.js";
import type { DesignSensitivity } from "../sim/results/sensitivity.js";
import { marginalMiss } from "./lab-report.js";

const average: TargetFailure = { target: "averageCpu", cpu: 0.71, limit: 0.7 };
const unservable: TargetFailure = { target: "read", read: "latest", reason: "not a key range" };

function design(failures: TargetFailure[], nodesNeeded: number | null): EvaluatedCandidate {
  return {
    kind: "judged",
    candidate: { name: "as-is" },
    nodes: 12,
    scores: { nodesNeeded },
    failures,
    reads: [],
  } as unknown as EvaluatedCandidate;
}

const ends = (optimistic: boolean) =>
  ({ meets: { default: false, pessimistic: false, optimistic } }) as DesignSensitivity;

describe("a marginal miss", () => {
  it("is a capacity miss the optimistic end of the range meets; not a miss more nodes do not fix, nor one no end meets", () => {
    expect(marginalMiss(design([average], 13), ends(true))).toBe(true);
    expect(marginalMiss(design([average], 13), ends(false))).toBe(false);
    expect(marginalMiss(design([average, unservable], 13), ends(true))).toBe(false);
    expect(marginalMiss(design([average], null), ends(true))).toBe(false);
    expect(marginalMiss(design([], 12), ends(true))).toBe(false);
    expect(marginalMiss(design([average], 13), undefined)).toBe(false);
  });
});

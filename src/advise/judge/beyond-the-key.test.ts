import { describe, expect, it } from "vitest";
import type { DesignResult } from "../../sim/results/results.js";
import { validateScenario } from "../../sim/scenario/scenario.js";
import type { DesignSizing } from "../size/sizing.js";
import { beyondTheKey } from "./beyond-the-key.js";
import type { CandidateDesign } from "./candidates.js";
import { decisionTable } from "./decision-table.js";
import type { EvaluatedCandidate } from "./recommend.js";
import { DEFAULT_ADVICE_TARGETS, type DesignScores, type TargetFailure } from "./score.js";

const scenario = validateScenario({
  name: "tenants",
  cluster: { nodes: 4 },
  workload: {
    groups: [
      { name: "big", entities: 100, fields: { id: "b{i:04}" }, writesPerS: 30000 },
      { name: "rest", entities: 10000, fields: { id: "{hex8:i}" }, writesPerS: 10000 },
    ],
    reads: [{ name: "dashboard-30d", kind: "scan", group: "big", window: "30d", perS: 2 }],
  },
  designs: [
    {
      name: "current",
      schema: {
        version: 1,
        name: "id-ts",
        layout: "text",
        segments: [
          { field: "id", codec: { type: "string" } },
          { field: "ts", codec: { type: "timestamp", unit: "ms" } },
        ],
      },
    },
  ],
});

function asIs(scores: Partial<DesignScores>, failures: TargetFailure[]): EvaluatedCandidate {
  const candidate = {
    name: "as-is",
    changes: [],
    complexity: 0,
    design: scenario.designs[0]!,
  } as unknown as CandidateDesign;
  const full = {
    nodes: 4,
    hottestCpu: 0.8,
    averageCpu: 0.8,
    maxOverMedian: 1.1,
    nodesNeeded: 5,
    reads: [],
    ...scores,
  };
  // CPU, not storage, sizes it (one node holds the data): the notes read the scores.
  const sizing = { today: { bound: "cpu" } } as DesignSizing;
  const result = { summary: { guidance: { nodesNeeded: { cpu: full.nodesNeeded, storage: 1 } } } };
  return {
    kind: "judged",
    candidate,
    nodes: 4,
    scores: full as DesignScores,
    result: result as unknown as DesignResult,
    sizing,
    reads: [],
    failures,
  };
}

describe("beyond the key", () => {
  it("says a spread but overloaded key needs nodes, not a key change; flags dashboards and a hot tenant", () => {
    const evaluated = asIs(
      {
        reads: [
          {
            name: "dashboard-30d",
            kind: "scan",
            perS: 2,
            fanout: 1,
            p99Ms: 9,
            rowsReadPerRead: 777_600,
            shedShare: 0,
          },
        ],
      },
      [{ target: "averageCpu", cpu: 0.8, limit: 0.7 }],
    );
    const notes = beyondTheKey(scenario, evaluated, undefined, DEFAULT_ADVICE_TARGETS);
    expect(notes).toEqual([
      { kind: "capacity", bound: "cpu", maxOverMedian: 1.1, nodesNeeded: 5 },
      { kind: "analytical-store", read: "dashboard-30d", windowS: 30 * 86400, rowsPerScan: 777_600 },
      { kind: "dominant-tenant", group: "big", writeShare: 0.75, entityShare: 100 / 10_100 },
    ]);
  });

  it("says more nodes will not cool a hot range", () => {
    const evaluated = asIs({ hottestCpu: 3, maxOverMedian: 12, nodesNeeded: null }, [
      { target: "hottestCpu", cpu: 3, limit: 0.9 },
    ]);
    expect(beyondTheKey(scenario, evaluated, undefined, DEFAULT_ADVICE_TARGETS)[0]).toEqual({
      kind: "more-nodes-do-not-help",
      maxOverMedian: 12,
      hottestCpu: 3,
      hottestTarget: DEFAULT_ADVICE_TARGETS.hottestCpu,
    });
    const rows = decisionTable(scenario, evaluated, [evaluated]);
    expect(rows.map((row) => [row.factor, row.pointsTo])).toEqual([
      ["Write pattern", "salting"],
      ["Read pattern", "alternatives"],
      ["Data volume", "salting"],
      ["Cluster size", "alternatives"],
      ["Query complexity", "either"],
    ]);
  });
});

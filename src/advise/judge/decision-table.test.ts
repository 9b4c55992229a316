import { describe, expect, it } from "vitest";
import type { DesignResult } from "../../sim/results/results.js";
import { validateScenario } from "../../sim/scenario/scenario.js";
import type { DesignSizing } from "../size/sizing.js";
import type { CandidateDesign } from "./candidates.js";
import { decisionTable } from "./decision-table.js";
import type { EvaluatedCandidate } from "./recommend.js";
import type { DesignScores } from "./score.js";

/** A 12-node fleet of `entities` devices writing `writesPerS` of 1 KB rows under `segments`. */
function fleet(entities: number, writesPerS: number, segments: unknown[]) {
  return validateScenario({
    name: "fleet",
    cluster: { nodes: 12 },
    workload: {
      groups: [{ name: "devices", entities, fields: { deviceID: "d-{i:06}" }, writesPerS }],
      reads: [{ name: "latest-10", kind: "latest", group: "devices", limit: 10, perS: 100 }],
    },
    designs: [{ name: "current", schema: { version: 1, name: "k", layout: "text", segments } }],
  });
}

const deviceOnly = [{ field: "deviceID", codec: { type: "string" } }];
const deviceTime = [...deviceOnly, { field: "ts", codec: { type: "timestamp", unit: "ms" } }];

/** The as-is design, concentrated on its hottest node, with the nodes its guidance asks for. */
function asIs(
  scenario: ReturnType<typeof fleet>,
  nodesNeeded: { cpu: number | null; storage: number },
): EvaluatedCandidate {
  const candidate = { name: "as-is", changes: [], complexity: 0, design: scenario.designs[0]! };
  const scores = { nodes: 12, hottestCpu: 3, averageCpu: 0.4, maxOverMedian: 12, reads: [] };
  const result = { summary: { guidance: { nodesNeeded } } };
  return {
    kind: "judged",
    candidate: candidate as unknown as CandidateDesign,
    nodes: 12,
    scores: scores as unknown as DesignScores,
    result: result as unknown as DesignResult,
    sizing: {} as DesignSizing,
    reads: [],
    failures: [{ target: "hottestCpu", cpu: 3, limit: 0.9 }],
  };
}

const leanings = (rows: ReturnType<typeof decisionTable>) => rows.map((row) => row.pointsTo);

describe("the decision table", () => {
  it("points to salting for a concentrated range of many rows on a large cluster", () => {
    const scenario = fleet(90_000, 180_000, deviceTime);
    const rows = decisionTable(scenario, asIs(scenario, { cpu: null, storage: 1 }), []);
    expect(leanings(rows)).toContain("salting");
  });

  it("is silent on salting where one row is hotter than any node: no salt splits a row", () => {
    const scenario = fleet(1, 20_000, deviceOnly);
    const rows = decisionTable(scenario, asIs(scenario, { cpu: null, storage: 1 }), []);
    expect(leanings(rows)).not.toContain("salting");
    expect(rows.find((row) => row.factor === "Write pattern")!.pointsTo).toBe("alternatives");
  });

  it("finds one busy row among many quiet ones, at the hottest-node target or over it", () => {
    for (const share of [0.9, 1.2]) {
      const base = fleet(1_000_000, 8_400, deviceOnly);
      // One gateway device writes `share` of an SSD node's 14,000 writes/s of 1 KB into its one row.
      const gateway = {
        name: "gateway",
        entities: 1,
        fields: { deviceID: "gateway-0" },
        writesPerS: share * 14_000,
      };
      const scenario = validateScenario({
        ...base,
        workload: { ...base.workload, rowBytes: 1024, groups: [...base.workload.groups, gateway] },
      });
      const rows = decisionTable(scenario, asIs(scenario, { cpu: null, storage: 1 }), []);
      expect(leanings(rows)).not.toContain("salting");
    }
  });

  it("is silent on salting where storage, not spread, sizes the cluster", () => {
    const scenario = fleet(90_000, 180_000, deviceTime);
    const rows = decisionTable(scenario, asIs(scenario, { cpu: 8, storage: 30 }), []);
    expect(leanings(rows)).not.toContain("salting");
    expect(rows.find((row) => row.factor === "Data volume")!.pointsTo).toBe("alternatives");
  });
});

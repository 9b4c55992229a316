/**
 * The multi-cluster checks of examples/checks (README.md there, "Issue 25"): answers written from
 * Google's pages before the runs, asserted on the advisor's multi-cluster answer.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { adviseScenario } from "../src/advise/judge/advise.js";
import type { MultiClusterAnswer } from "../src/advise/judge/multi-cluster.js";
import { simulateScenario } from "../src/sim/results/simulate.js";
import { parseScenario } from "../src/sim/scenario/scenario.js";

const DIR = new URL("../examples/checks/", import.meta.url);
const scenarioOf = (file: string) => parseScenario(readFileSync(new URL(file, DIR), "utf8"));
const answerOf = (file: string): MultiClusterAnswer =>
  adviseScenario(scenarioOf(file), { candidates: "scenario" }).multiCluster!;
/** The scenario on one cluster: no replication. */
const alone = (file: string) => {
  const { replication: _none, ...single } = scenarioOf(file);
  return simulateScenario(single).designs[0]!.summary.steadyState;
};

describe("multi-cluster checks", () => {
  it("multi-cluster-writes: a second cluster applies every write, at no less CPU than one cluster alone", () => {
    const answer = answerOf("multi-cluster-writes.yaml");
    const lone = alone("multi-cluster-writes.yaml").averageNodeCpu;
    for (const plan of answer.clusters) {
      expect(plan.normal.perS.writes).toBe(40000);
      expect(plan.normal.averageCpu / lone).toBeGreaterThanOrEqual(1);
      expect(plan.normal.averageCpu / lone).toBeLessThanOrEqual(1.3);
    }
  });

  it("multi-cluster-storage: each cluster keeps a copy (7 storage nodes each), twice the storage bill", () => {
    const answer = answerOf("multi-cluster-storage.yaml");
    for (const plan of answer.clusters) expect(plan.needed.storage).toBe(7);
    expect(answer.cost.storage).toBeCloseTo(2 * answer.singleClusterCost!.storage, 6);
  });

  it("multi-cluster-reads: reads from both regions split evenly, each cluster within a node of one cluster's CPU nodes", () => {
    const answer = answerOf("multi-cluster-reads.yaml");
    const advice = adviseScenario(
      (({ replication: _none, ...single }) => single)(scenarioOf("multi-cluster-reads.yaml")),
      { candidates: "scenario" },
    );
    const single = advice.recommended!.sizing!.today.cpu!;
    for (const plan of answer.clusters) {
      expect(plan.normal.perS.point).toBeCloseTo(20000, 6);
      expect(Math.abs(plan.needed.cpu! - single)).toBeLessThanOrEqual(1);
    }
  });

  it("multi-cluster-failover: with east lost, central carries every write and read within 70 %, shedding nothing", () => {
    const [failover] = answerOf("multi-cluster-failover.yaml").failovers;
    expect(failover).toMatchObject({ down: "east", atS: 1200, forS: 900, meets: true, manualFailover: [] });
    const [central] = failover!.survivors;
    expect(central).toMatchObject({ cluster: "central", shedWriteShare: 0, shedReadShare: 0 });
    expect(central!.perS).toMatchObject({ writes: 10000, point: 20000 });
    expect(central!.averageCpu).toBeLessThanOrEqual(0.7);
  });

  it("multi-cluster-consistency: pinned latest reads its writes, nearest dashboards may lag, 35 %, manual failover for the pinned", () => {
    const answer = answerOf("multi-cluster-consistency.yaml");
    const path = (name: string) => answer.paths.find((route) => route.path === name)!;
    expect(path("latest-10")).toMatchObject({ readYourWrites: true, stalenessS: 0, suits: { met: true } });
    expect(path("dashboard-7d")).toMatchObject({
      readYourWrites: false,
      stalenessS: 1,
      suits: { met: true },
    });
    expect(answer.targets.averageCpu).toBe(0.35);
    expect(answer.failovers.map((failover) => [failover.down, failover.manualFailover])).toEqual([
      ["east", ["writes", "latest-10"]],
      ["central", []],
    ]);
  });
});

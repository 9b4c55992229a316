import { describe, expect, it } from "vitest";
import { simulateScenario } from "../results/simulate.js";
import type { Scenario } from "../scenario/scenario.js";
import { clusterScenario, writeCostFactor } from "./cluster-scenario.js";
import { replicatedScenario } from "./replicated.fixture.js";
import { routePaths } from "./routing.js";

const scenario = replicatedScenario;

const steady = (input: Scenario) => simulateScenario(input).designs[0]!.summary;
const onCluster = (input: Scenario, cluster: string, down: string[] = []) => {
  const routes = routePaths(input.replication!, ["point"], new Set(down));
  return steady(clusterScenario(input, input.designs[0]!, { name: cluster, nodes: 4 }, routes));
};
/** The same scenario on one cluster, without replication. */
const alone = (input: Scenario) => {
  const { replication: _none, ...single } = input;
  return steady(single);
};

describe("a cluster of a replicated instance", () => {
  it("applies every write: a second cluster does not raise write throughput, each cluster's write CPU is at least the lone cluster's", () => {
    const writesOnly = scenario(0.001, { default: "any" });
    const lone = alone(writesOnly);
    const east = onCluster(writesOnly, "east");
    expect(east.writes.perS).toBe(lone.writes.perS);
    expect(east.steadyState.averageNodeCpu).toBeGreaterThanOrEqual(lone.steadyState.averageNodeCpu);
    // Half the writes reach this cluster first; the other half it pulls at the replication share's extra CPU.
    expect(writeCostFactor(0.5, 0.2)).toBeCloseTo(1.1, 12);
  });

  it("keeps its own copy of every table: each cluster stores what the lone cluster stores", () => {
    const input = scenario(8000, { default: "any" });
    const lone = alone(input).guidance.storage.bytes;
    for (const cluster of ["east", "central"])
      expect(onCluster(input, cluster).guidance.storage.bytes).toBeCloseTo(lone, -3);
  });

  it("serves its share of multi-cluster reads: two clusters with clients in both regions split them", () => {
    const input = scenario(8000, { default: "any" });
    const reads = (cluster: string) =>
      onCluster(input, cluster).reads.find((read) => read.name === "point")!.perS;
    expect(reads("east")).toBeCloseTo(4000, 6);
    expect(reads("central")).toBeCloseTo(4000, 6);
  });

  it("carries a lost cluster's reads and every write while the other is down", () => {
    const input = scenario(8000, { default: "any" });
    const normal = onCluster(input, "central");
    const failed = onCluster(input, "central", ["east"]);
    expect(failed.reads.find((read) => read.name === "point")!.perS).toBeCloseTo(8000, 6);
    expect(failed.writes.perS).toBe(normal.writes.perS);
    expect(failed.steadyState.averageNodeCpu).toBeGreaterThan(normal.steadyState.averageNodeCpu);
  });

  it("serves nothing of a path pinned to another cluster", () => {
    const input = scenario(8000, { writes: "any", point: "pinned" });
    expect(onCluster(input, "central").reads).toEqual([]);
    expect(onCluster(input, "east").reads[0]!.perS).toBe(8000);
  });
});

/**
 * One cluster of a replicated instance as a scenario of its own, for the single-cluster simulator.
 * Google, "Replication and performance" (https://cloud.google.com/bigtable/docs/replication-performance):
 * replication "does not increase write throughput" — a write to one cluster is replicated to all the
 * others, each cluster spending CPU to pull the others' changes — while reads can be spread. So a
 * cluster applies every write (same rows, same bytes stored: each cluster keeps its own copy of every
 * table, Google "Monitoring"), pays `replication.cpuShare` more CPU on the writes that reached
 * another cluster first, and serves the share of each read its routes send it.
 */
import { constantAt, type ModelEnd } from "../cluster/model-constants.js";
import { WRITES_PATH } from "../scenario/replication-topology.js";
import type { Scenario, ScenarioDesign } from "../scenario/scenario.js";
import type { PathRoute } from "./routing.js";

/** The CPU factor of a cluster's writes: 1 for those it took first, 1 + cpuShare for those it pulled. */
export function writeCostFactor(directShare: number, cpuShare: number): number {
  return directShare + (1 - directShare) * (1 + cpuShare);
}

/**
 * `design` on `cluster` alone, on its `nodes`: every write at the cost `writeCostFactor` gives
 * (as a lower write capacity per node, which leaves rows and bytes as they are), each read at the
 * share its route sends here (reads sent elsewhere left out).
 */
export function clusterScenario(
  scenario: Scenario,
  design: ScenarioDesign,
  cluster: { name: string; nodes: number },
  routes: readonly PathRoute[],
  end: ModelEnd = "default",
): Scenario {
  const share = (path: string) => routes.find((route) => route.path === path)?.shares[cluster.name] ?? 0;
  const storage = design.storage ?? scenario.cluster.storage;
  const writesPerS = constantAt(
    storage === "ssd" ? "ssdWritesPerS" : "hddWritesPerS",
    end,
    scenario.cluster.capacity.writesPerS,
  );
  const cpuShare = constantAt("replicationCpuShare", end, scenario.replication?.cpuShare);
  const { replication: _replication, observed: _observed, ...single } = scenario;
  const { nodes: _nodes, ...onClusterNodes } = design;
  return {
    ...single,
    name: `${scenario.name}@${cluster.name}`,
    cluster: {
      ...scenario.cluster,
      nodes: cluster.nodes,
      capacity: {
        ...scenario.cluster.capacity,
        writesPerS: writesPerS / writeCostFactor(share(WRITES_PATH), cpuShare),
      },
    },
    workload: {
      ...scenario.workload,
      reads: scenario.workload.reads
        .map((read) => ({ ...read, perS: read.perS * share(read.name) }))
        .filter((read) => read.perS > 0),
    },
    designs: [onClusterNodes],
  };
}

import { describe, expect, it } from "vitest";
import { replicatedScenario } from "../../sim/replication/replicated.fixture.js";
import type { Replication } from "../../sim/scenario/replication-topology.js";
import { multiClusterReport } from "../report/multi-cluster-report.js";
import { adviseScenario } from "./advise.js";
import { routingTargets } from "./multi-cluster.js";

const clusters = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ name: `c${index}`, region: `region-${index}` }));
const replication = (count: number, routing: "single-cluster" | "multi-cluster"): Replication => ({
  clusters: clusters(count),
  appProfiles: [
    routing === "single-cluster" ? { name: "p", routing, cluster: "c0" } : { name: "p", routing },
  ],
  paths: { default: "p" },
  failures: [],
});

describe("routingTargets (Google, Monitoring: CPU utilization)", () => {
  it("is 35 % average for multi-cluster routing over 2 clusters without autoscaling", () => {
    expect(routingTargets(replication(2, "multi-cluster"), false)).toMatchObject({
      averageCpu: 0.35,
      hottestCpu: 0.9,
    });
  });

  it("is 70 % with single-cluster routing, whatever the clusters, and with autoscaling", () => {
    expect(routingTargets(replication(3, "single-cluster"), false).averageCpu).toBe(0.7);
    expect(routingTargets(replication(2, "multi-cluster"), true).averageCpu).toBe(0.7);
  });

  it("keeps n − 1 clusters at 70 % after one is lost for 3 or more clusters without autoscaling", () => {
    for (const count of [2, 3, 4, 8])
      expect(routingTargets(replication(count, "multi-cluster"), false).averageCpu).toBeCloseTo(
        (0.7 * (count - 1)) / count,
        12,
      );
  });
});

const scenario = replicatedScenario(8000, { default: "any" });

describe("the advisor's multi-cluster answer", () => {
  // Expected before running, from Google's pages: two clusters each apply all 20,000 writes/s (no more
  // write throughput), keep a copy each (twice the storage), split the 8,000 reads/s, and size for 35 %
  // average CPU so that either carries the other's reads alone within 70 %.
  const answer = adviseScenario(scenario, { candidates: "scenario", durationS: 2400 }).multiCluster!;

  it("sizes each cluster for Google's 35 % target, above what one cluster alone needs for 70 %", () => {
    expect(answer.targets.averageCpu).toBe(0.35);
    for (const plan of answer.clusters) {
      expect(plan.normal.perS.writes).toBe(20000);
      expect(plan.normal.perS.point).toBeCloseTo(4000, 6);
      expect(plan.nodes).toBeGreaterThanOrEqual(
        Math.ceil((plan.normal.averageCpu * plan.normal.nodes) / 0.35 - 1e-9),
      );
      expect(plan.nodes).toBeGreaterThan(answer.singleClusterNodes!);
    }
  });

  it("stores a copy per cluster: twice the single cluster's storage cost", () => {
    expect(answer.cost.storage).toBeCloseTo(2 * answer.singleClusterCost!.storage, 6);
  });

  it("has each survivor carry every write and all reads within 70 % when the other cluster is lost", () => {
    expect(answer.failovers.map((failover) => failover.down)).toEqual(["east", "central"]);
    for (const failover of answer.failovers) {
      expect(failover.meets).toBe(true);
      const [survivor] = failover.survivors;
      expect(survivor!.perS).toMatchObject({ writes: 20000, point: 8000 });
      expect(survivor!.averageCpu).toBeLessThanOrEqual(0.7);
      expect(survivor!.shedWriteShare).toBe(0);
    }
    expect(answer.meets).toBe(true);
  });

  it("says every read can be a replication lag behind under multi-cluster routing", () => {
    const point = answer.paths.find((route) => route.path === "point")!;
    expect(point).toMatchObject({
      readYourWrites: false,
      stalenessS: 1,
      suits: { wants: "nearest-cluster", met: true },
    });
  });

  it("reports a table of clusters within 120 columns and one item per path", () => {
    const parts = multiClusterReport(answer);
    for (const line of parts.filter((part) => part.kind === "table").flatMap((part) => part.lines))
      expect(line.length).toBeLessThanOrEqual(120);
    const list = parts.find((part) => part.kind === "list")!;
    expect(list.lines).toHaveLength(1 + answer.paths.length);
  });
});

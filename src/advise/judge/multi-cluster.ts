/**
 * The multi-cluster answer for the recommended design: how many nodes each cluster of the
 * scenario's replication needs, which app profile each path uses and what it can see of recent
 * writes, what losing a cluster does to the survivors, and what it all costs — next to the
 * single-cluster answer. Each cluster is simulated on its own (sim/replication/cluster-scenario.ts):
 * every write, the replication pull on writes that reached another cluster first, and the reads
 * its routes send it.
 *
 * CPU targets (Google, "Monitoring", https://cloud.google.com/bigtable/docs/monitoring-instance,
 * CPU utilization): single-cluster routing, any number of clusters: average 70 %; multi-cluster
 * routing with autoscaling: 70 %; multi-cluster routing without autoscaling and 2 clusters: 35 %,
 * so one cluster can take the other's traffic; 3 or more "depend on the configuration" — here
 * 70 % × (n − 1) ÷ n, the same reasoning (one cluster's traffic spread over the other n − 1 keeps
 * them at 70 %), which gives Google's 35 % at n = 2. The hottest node keeps Google's 90 %.
 */
import { constantAt } from "../../sim/cluster/model-constants.js";
import { clusterScenario } from "../../sim/replication/cluster-scenario.js";
import { type PathRoute, pathConsistency, routePaths } from "../../sim/replication/routing.js";
import type { DesignResult } from "../../sim/results/results.js";
import { type SimulationMode, simulateScenario } from "../../sim/results/simulate.js";
import {
  type ReplicaCluster,
  type Replication,
  WRITES_PATH,
} from "../../sim/scenario/replication-topology.js";
import type { Scenario } from "../../sim/scenario/scenario.js";
import { type MonthlyCost, monthlyCost } from "../size/cost.js";
import { type CpuTargets, type NodesNeeded, nodesNeeded, storagePlan } from "../size/sizing.js";
import type { JudgedCandidate } from "./recommend.js";

/** Google's targets for one cluster on its own: what a survivor must meet while it carries a lost cluster's traffic. */
export const SINGLE_CLUSTER_TARGETS: CpuTargets = { averageCpu: 0.7, hottestCpu: 0.9 };

export interface RoutingTargets extends CpuTargets {
  /** Which row of Google's table applies. */
  basis:
    | "single-cluster routing"
    | "multi-cluster routing with autoscaling"
    | "multi-cluster routing without autoscaling, 2 clusters"
    | "multi-cluster routing without autoscaling, 3+ clusters (derived)";
}

/** Google's average-CPU target for the routing in use, the clusters and whether they autoscale (`cluster.autoscaling`). */
export function routingTargets(replication: Replication, autoscaled: boolean): RoutingTargets {
  const clusters = replication.clusters.length;
  const multi = replication.appProfiles.some(
    (profile) =>
      profile.routing === "multi-cluster" && Object.values(replication.paths).includes(profile.name),
  );
  const hottestCpu = SINGLE_CLUSTER_TARGETS.hottestCpu;
  if (!multi) return { averageCpu: 0.7, hottestCpu, basis: "single-cluster routing" };
  if (autoscaled) return { averageCpu: 0.7, hottestCpu, basis: "multi-cluster routing with autoscaling" };
  if (clusters === 2)
    return { averageCpu: 0.35, hottestCpu, basis: "multi-cluster routing without autoscaling, 2 clusters" };
  return {
    averageCpu: (0.7 * (clusters - 1)) / clusters,
    hottestCpu,
    basis: "multi-cluster routing without autoscaling, 3+ clusters (derived)",
  };
}

/** What one cluster runs at in one case (all up, or a cluster lost). */
export interface ClusterRun {
  cluster: string;
  region: string;
  nodes: number;
  averageCpu: number;
  hottestCpu: number;
  /** Share of writes, and the largest share of any read, the cluster sheds. */
  shedWriteShare: number;
  shedReadShare: number;
  /** Hottest over median node CPU: a hot key range keeps its node whatever the count. */
  maxOverMedian: number;
  /** Requests per second it serves per path (writes: every write, replicated or not). */
  perS: Record<string, number>;
}

export interface ClusterPlan {
  cluster: string;
  region: string;
  /** Nodes it was simulated on: its own count, else the single-cluster answer's. */
  simulatedNodes: number;
  normal: ClusterRun;
  /** Nodes for CPU (at the routing's target) and storage (its own copy of every table). */
  needed: NodesNeeded;
  /** What it needs in all: the routing's target, and Google's single-cluster targets while it carries a lost cluster. */
  nodes: number;
}

/** The cluster lost, and when and for how long (from the scenario's failures; none when each cluster is lost in turn). */
export type ClusterLoss = { down: string } & ({ atS: number; forS: number } | { atS: null; forS: null });

export type FailoverCase = ClusterLoss & {
  /** The survivors on their planned nodes, carrying the lost cluster's traffic. */
  survivors: ClusterRun[];
  /** Single-cluster paths that stop until failed over by hand (Google, "Failovers"). */
  manualFailover: string[];
  /** Survivors meet Google's single-cluster targets and shed nothing. */
  meets: boolean;
};

/** A path's route; a read's also says what it can see of recent writes and which routing suits it. */
export type PathAnswer = PathRoute &
  (
    | { readYourWrites: null; stalenessS: null; suits: null }
    | { readYourWrites: boolean; stalenessS: number; suits: RoutingAdvice }
  );

export interface MultiClusterAnswer {
  design: string;
  targets: RoutingTargets;
  autoscaling: boolean;
  clusters: ClusterPlan[];
  /** Each path's route; reads also say what they can see of recent writes and which routing suits them (null for the writes). */
  paths: PathAnswer[];
  failovers: FailoverCase[];
  /** Per month: every cluster's nodes and its copy of the data. */
  cost: MonthlyCost;
  /** The single-cluster answer's cost, for comparison. */
  singleClusterCost: MonthlyCost | undefined;
  singleClusterNodes: number | null;
  lagS: number;
  /** Every cluster meets the routing's targets on its nodes, and every failover case holds. */
  meets: boolean;
}

export interface MultiClusterOptions {
  durationS: number;
  mode: SimulationMode;
  growth: number;
  /** The simulator; default simulateScenario. */
  simulate?: typeof simulateScenario;
}

/** Simulations more per survivor when its planned nodes do not carry a lost cluster's traffic. */
const FAILOVER_RESIZES = 2;

/**
 * The multi-cluster answer for `evaluated` (the single-cluster recommendation) under
 * `scenario.replication`; undefined without one.
 */
export function multiClusterAnswer(
  scenario: Scenario,
  evaluated: JudgedCandidate,
  options: MultiClusterOptions,
): MultiClusterAnswer | undefined {
  const replication = scenario.replication;
  if (!replication) return undefined;
  const design = evaluated.candidate.design;
  const storage = design.storage ?? scenario.cluster.storage;
  const plan = storagePlan(scenario, storage);
  const readNames = scenario.workload.reads.map((read) => read.name);
  const autoscaled = scenario.cluster.autoscaling !== undefined;
  const targets = routingTargets(replication, autoscaled);
  const storedBytes = evaluated.sizing.atGrowth.storedBytes;
  const lagS = constantAt("replicationLagS", "default", replication.lag);
  const run = (down: ReadonlySet<string>, cluster: ReplicaCluster, nodes: number): ClusterRun => {
    const routes = routePaths(replication, readNames, down);
    const single = clusterScenario(scenario, design, { name: cluster.name, nodes }, routes);
    const result = (options.simulate ?? simulateScenario)(single, {
      durationS: options.durationS,
      mode: options.mode,
    }).designs[0]!;
    return clusterRun(result, cluster.region, cluster.name, routes, scenario);
  };
  const sized = (load: ClusterRun, cpuTargets: CpuTargets) =>
    nodesNeeded(
      {
        nodes: load.nodes,
        averageCpu: load.averageCpu,
        hottestCpu: load.hottestCpu,
        maxOverMedian: load.maxOverMedian,
      },
      cpuTargets,
      storedBytes,
      plan,
      options.growth,
    );

  // Each cluster on its planned nodes; `nodes` grows where a survivor needs more to carry a lost cluster.
  const normal = replication.clusters.map((cluster) => {
    const simulatedNodes = cluster.nodes ?? evaluated.nodes;
    const load = run(new Set(), cluster, simulatedNodes);
    const needed = sized(load, targets);
    return { cluster, simulatedNodes, load, needed, nodes: needed.total ?? simulatedNodes };
  });

  const losses: ClusterLoss[] =
    replication.failures.length > 0
      ? replication.failures.map((failure) => ({ down: failure.cluster, atS: failure.at, forS: failure.for }))
      : replication.clusters.map((cluster) => ({ down: cluster.name, atS: null, forS: null }));
  const failovers = losses.map((loss): FailoverCase => {
    const down = new Set([loss.down]);
    const survivors = normal
      .filter((each) => each.cluster.name !== loss.down)
      .map((survivor) => {
        let load = run(down, survivor.cluster, survivor.nodes);
        // A survivor that cannot carry the lost cluster's share on its planned nodes gets the nodes it needs for it.
        for (let attempt = 0; attempt < FAILOVER_RESIZES && !carries(load); attempt++) {
          const more = sized(load, SINGLE_CLUSTER_TARGETS).total;
          if (more === null || more <= load.nodes) break;
          survivor.nodes = more;
          load = run(down, survivor.cluster, more);
        }
        return load;
      });
    const routes = routePaths(replication, readNames, down);
    return {
      ...loss,
      survivors,
      manualFailover: routes.filter((route) => route.manualFailover).map((route) => route.path),
      meets: survivors.every(carries),
    };
  });
  const clusters: ClusterPlan[] = normal.map(({ cluster, simulatedNodes, load, needed, nodes }) => ({
    cluster: cluster.name,
    region: cluster.region,
    simulatedNodes,
    normal: load,
    needed,
    nodes,
  }));

  const routes = routePaths(replication, readNames);
  const consistency = pathConsistency(routes, replication, lagS);
  const cost = clusters
    .map((plan) => monthlyCost(scenario, plan.nodes, storage, storedBytes))
    .reduce((sum, each) => ({
      nodes: sum.nodes + each.nodes,
      storage: sum.storage + each.storage,
      total: sum.total + each.total,
    }));
  return {
    design: evaluated.candidate.name,
    targets,
    autoscaling: autoscaled,
    clusters,
    paths: routes.map((route): PathAnswer => {
      const seen = consistency.find((each) => each.path === route.path);
      const read = scenario.workload.reads.find((each) => each.name === route.path);
      // Only the reads have a consistency (the writes path has none).
      if (!read || !seen) return { ...route, readYourWrites: null, stalenessS: null, suits: null };
      return {
        ...route,
        readYourWrites: seen.readYourWrites,
        stalenessS: seen.stalenessS,
        suits: routingAdvice(read, route, seen.readYourWrites, lagS),
      };
    }),
    failovers,
    cost,
    singleClusterCost: evaluated.cost,
    singleClusterNodes: evaluated.sizing.atGrowth.total,
    lagS,
    // A cluster's nodes are at least what it needs by construction; it misses only where no count helps.
    meets:
      clusters.every((plan) => plan.needed.total !== null) && failovers.every((failover) => failover.meets),
  };
}

/**
 * Which routing suits a read: the newest points of an entity must show what was just written, so
 * `latest` is pinned with the writes to one cluster (single-cluster routing on both: read-your-writes);
 * a read over a window (scan, get) can be a replication lag behind — a lag is a sliver of its
 * window — so it reads the nearest cluster and fails over by itself (multi-cluster routing).
 */
export type RoutingAdvice = {
  /** The declared profile gives what the read wants (a pinned read may still read the nearest: it then only gives up failover). */
  met: boolean;
} & (
  | { wants: "pinned-with-writes"; windowOverLag: null }
  /** `windowOverLag`: the read's window over the lag. */
  | { wants: "nearest-cluster"; windowOverLag: number }
);

export function routingAdvice(
  read: Scenario["workload"]["reads"][number],
  route: PathRoute,
  readYourWrites: boolean,
  lagS: number,
): RoutingAdvice {
  if (read.kind === "latest")
    return { wants: "pinned-with-writes", met: readYourWrites, windowOverLag: null };
  return {
    wants: "nearest-cluster",
    met: route.routing === "multi-cluster",
    windowOverLag: read.window / lagS,
  };
}

/** A survivor carries a lost cluster's share: Google's single-cluster targets, nothing shed. */
function carries(load: ClusterRun): boolean {
  return (
    load.averageCpu <= SINGLE_CLUSTER_TARGETS.averageCpu &&
    load.hottestCpu <= SINGLE_CLUSTER_TARGETS.hottestCpu &&
    load.shedWriteShare === 0 &&
    load.shedReadShare === 0
  );
}

function clusterRun(
  result: DesignResult,
  region: string,
  cluster: string,
  routes: readonly PathRoute[],
  scenario: Scenario,
): ClusterRun {
  const steady = result.summary.steadyState;
  const writesPerS = scenario.workload.groups.reduce((sum, group) => sum + group.writesPerS, 0);
  const perS: Record<string, number> = { [WRITES_PATH]: writesPerS };
  for (const read of scenario.workload.reads) {
    perS[read.name] = read.perS * (routes.find((route) => route.path === read.name)?.shares[cluster] ?? 0);
  }
  return {
    cluster,
    region,
    nodes: result.nodes,
    averageCpu: steady.averageNodeCpu,
    hottestCpu: steady.hottestNodeCpu,
    shedWriteShare: steady.shedWriteShare,
    shedReadShare: Math.max(0, ...steady.reads.map((read) => read.shedShare)),
    maxOverMedian: steady.maxOverMedian,
    perS,
  };
}

/**
 * Sizing rules a user can read: the nodes a design needs for CPU and for storage, each against
 * Google's targets (Google Cloud, "Monitoring", https://cloud.google.com/bigtable/docs/monitoring-instance:
 * average CPU ≤ 70 %, hottest node ≤ 90 %, storage ≤ 70 % of a node's limit), today and at the
 * growth the user states.
 *
 * - CPU: a node's CPU is the sum of the costs it serves (cluster.ts), linear in the rates, so at
 *   growth g every node carries g× today's demand; the nodes needed are the simulator's rule
 *   (sim/nodes-needed.ts) on that demand: a spread load needs the fewest nodes holding it under both
 *   targets at the same hottest/average ratio; load on a key range keeps its node (too hot there: no
 *   count helps) and the rest spreads over the others; a load one node carries needs one.
 * - Storage: the bytes kept are the mean write rate (not the peak) × the retention, over the
 *   compression, × g; nodes = ⌈bytes ÷ (the node's limit × the storage target)⌉. Growth multiplies
 *   what a retention keeps and nothing else.
 * - Retention (sim/retention.ts): the scenario's, else the longest window a declared read needs;
 *   with neither, what the run wrote.
 */
import { constantAt } from "../../sim/cluster/model-constants.js";
import {
  type StoragePlanning,
  storageNodesNeeded,
  storagePlanning,
} from "../../sim/cluster/storage-target.js";
import { cpuNodesNeeded } from "../../sim/results/nodes-needed.js";
import { SETTLED_RATIO } from "../../sim/results/summary.js";
import { impliedRetention, type Retention } from "../../sim/scenario/retention.js";
import type { Scenario, Storage } from "../../sim/scenario/scenario.js";

/** What a node may hold and how written bytes become stored bytes, on one storage type. */
export interface StoragePlan {
  storage: Storage;
  retention: Retention | undefined;
  /**
   * Bytes per node planned for: the autoscaler's storage target where the scenario declares
   * autoscaling, else a node's limit × Google's storage target (storage-target.ts).
   */
  plannedBytesPerNode: number;
  /** The same, with the tiers when the scenario declares tiered storage, and the node step. */
  planning: StoragePlanning;
  /** Logical bytes per stored byte. */
  compression: number;
}

export function storagePlan(scenario: Scenario, storage: Storage): StoragePlan {
  const retention = impliedRetention(scenario);
  const planning = storagePlanning(
    scenario,
    storage,
    scenario.cluster.nodeScalingFactor ?? 1,
    retention?.seconds ?? null,
  );
  return {
    storage,
    retention,
    plannedBytesPerNode: planning.plannedBytesPerNode,
    planning,
    compression: constantAt("compression", "default", scenario.workload.compression),
  };
}

/** Bytes kept: the mean write rate over the retention, compressed, at growth `growth`. */
export function storedBytes(bytesPerS: number, retentionS: number, plan: StoragePlan, growth = 1): number {
  return (bytesPerS * retentionS * growth) / plan.compression;
}

/** Fewest nodes holding `bytes` within the plan (at least one; in twos under 2× node scaling). */
export function storageNodes(
  bytes: number,
  plan: StoragePlan,
  nodeStep: 1 | 2 = plan.planning.nodeStep,
): number {
  return storageNodesNeeded(bytes, { ...plan.planning, nodeStep });
}

export interface CpuTargets {
  averageCpu: number;
  hottestCpu: number;
}

/** The steady state of a run, as the CPU rule reads it. */
export interface CpuLoad {
  /** Standard nodes. */
  nodes: number;
  /** CPU per compute node: a standard node, or two under node scaling factor 2. */
  averageCpu: number;
  hottestCpu: number;
  maxOverMedian: number;
  /** 2: the run's nodes were compute nodes of two standard nodes (default 1). */
  nodeScalingFactor?: 1 | 2;
}

/**
 * Fewest nodes meeting both CPU targets at `growth` × today's load: the simulator's rule
 * (sim/nodes-needed.ts) on the demand grown `growth` times — one rule, so a design needs the same
 * nodes in `simulate`, `advise` and `lab`; null when the load sits on a key range no count cools.
 * Under 2× node scaling the rule counts compute nodes, each two standard nodes.
 */
export function cpuNodes(load: CpuLoad, targets: CpuTargets, growth = 1): number | null {
  const factor = load.nodeScalingFactor ?? 1;
  const computeNodes = cpuNodesNeeded(
    {
      averageNodeCpu: load.averageCpu * growth,
      hottestNodeCpu: load.hottestCpu * growth,
      maxOverMedian: load.maxOverMedian,
    },
    load.nodes / factor,
    { average: targets.averageCpu, hottest: targets.hottestCpu, spreadRatio: SETTLED_RATIO },
  );
  return computeNodes === null ? null : computeNodes * factor;
}

/** The nodes one design needs at one workload level, and which resource sets the count. */
export type NodesNeeded = SizedNodes | UnsizedNodes;

interface StorageNeed {
  storage: number;
  /** Bytes kept over the retention. */
  storedBytes: number;
}

/** A load more nodes carry: its CPU nodes, and the larger of those and the storage nodes. */
export interface SizedNodes extends StorageNeed {
  cpu: number;
  /** max(cpu, storage). */
  total: number;
  /** `storage` when storage needs at least as many nodes as CPU. */
  bound: "cpu" | "storage";
}

/** A load sitting on a key range more nodes would not cool: no node count carries it. */
export interface UnsizedNodes extends StorageNeed {
  cpu: null;
  total: null;
  bound: "cpu";
}

export function nodesNeeded(
  load: CpuLoad,
  targets: CpuTargets,
  bytes: number,
  plan: StoragePlan,
  growth = 1,
): NodesNeeded {
  const cpu = cpuNodes(load, targets, growth);
  const storage = storageNodes(bytes, plan, load.nodeScalingFactor ?? 1);
  if (cpu === null) return { cpu, storage, total: null, storedBytes: bytes, bound: "cpu" };
  return {
    cpu,
    storage,
    total: Math.max(cpu, storage),
    storedBytes: bytes,
    // A tie goes to storage: the bytes need those nodes whatever the CPU (and a key range's CPU count is only the nodes simulated).
    bound: storage >= cpu ? "storage" : "cpu",
  };
}

/** A design's nodes today and at the stated growth. */
export interface DesignSizing {
  growth: number;
  today: NodesNeeded;
  atGrowth: NodesNeeded;
}

/** Today's sizing of a run and the same rules at `growth`: CPU and stored bytes grow with it, nothing else. */
export function designSizing(
  load: CpuLoad & { storedBytes: number },
  targets: CpuTargets,
  plan: StoragePlan,
  growth: number,
): DesignSizing {
  return {
    growth,
    today: nodesNeeded(load, targets, load.storedBytes, plan),
    atGrowth: nodesNeeded(load, targets, load.storedBytes * growth, plan, growth),
  };
}

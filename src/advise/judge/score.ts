/**
 * Scores one simulated design against Google's guidance (average ≤ 70 %, hottest node ≤ 90 %,
 * storage within its planned share of a node) in the simulator's steady state: after the model's
 * warm-up window, once splits and the balancer have acted (a short test misjudges Bigtable, seed
 * 004; a new table's warm-up is a one-off, its steady state is not). The same figures as
 * `simulate` and `lab` show, so every command judges a design alike.
 * Latency follows node CPU in the simulator, so p99s are reported, not targeted.
 */
import type { ClientCores } from "../../sim/client/client-cores.js";
import type { ReadSummary } from "../../sim/engine/measurements.js";
import type { DesignResult } from "../../sim/results/results.js";
import { SETTLED_RATIO } from "../../sim/results/summary.js";
import type { LargestRow } from "../../sim/workload/row-size.js";
import type { KeyFootprint } from "../size/key-size.js";
import { nodesNeeded, type StoragePlan, storedBytes } from "../size/sizing.js";

export interface AdviceTargets {
  /** Mean CPU over all nodes. */
  averageCpu: number;
  /** CPU of the hottest node. */
  hottestCpu: number;
  /**
   * Hottest node of a new salted table while it warms up. It starts pre-split at its bucket
   * boundaries, dealt round-robin to the nodes, so this shows whether N buckets cover the nodes
   * evenly (fewer buckets than nodes leave some idle while others shed). Unsalted tables are not
   * judged on warm-up: the simulator starts them on one node, where an operator would pre-split.
   */
  warmUpCpu: number;
}

export const DEFAULT_ADVICE_TARGETS: AdviceTargets = { averageCpu: 0.7, hottestCpu: 0.9, warmUpCpu: 1 };

/** Above this hottest/median ratio the load sits on a key range, and more nodes do not lower the hottest. */
export const BALANCED_MAX_OVER_MEDIAN = SETTLED_RATIO;
/** Shed writes above this share (steady state) fail a design whatever its CPU. */
const MAX_SHED_SHARE = 0.01;

export type ReadScore = Pick<
  ReadSummary,
  "name" | "kind" | "perS" | "fanout" | "p99Ms" | "rowsReadPerRead" | "shedShare"
>;

export interface DesignScores {
  /** Standard nodes. */
  nodes: number;
  /** 2: CPU figures are per compute node of two standard nodes. */
  nodeScalingFactor: 1 | 2;
  costPerHour: number;
  buckets: number;
  /** Steady state (after the model's warm-up): hottest node (95th percentile), mean node, hottest / median. */
  hottestCpu: number;
  averageCpu: number;
  maxOverMedian: number;
  /** Hottest node in any sample interval, warm-up included. */
  peakHottestCpu: number;
  /** Over the whole run, warm-up included. */
  writeP99Ms: number;
  /** Steady state. */
  writeShedShare: number;
  /** Bytes written per second at the mean rates. */
  bytesPerS: number;
  /** Bytes kept over the retention (sizing.ts): the mean write rate × the retention, compressed. */
  storedBytes: number;
  /** Bytes stored per node (over the retention) as a share of the planned part of a node's limit. */
  storagePerNode: number;
  reads: ReadScore[];
  /** The application cores the simulated reads need on the client, and per read (sim/client). */
  clientCores: ClientCores;
  keyBytesPerRow: number;
  saltBytesPerRow: number;
  rowsPerDay: number;
  /** Key bytes stored per day minus the baseline's (negative when the change saves space). */
  keyOverheadBytesPerDay: number;
  /**
   * Fewest nodes meeting the CPU and storage targets today (sizing.ts, the simulator's rule): null
   * when the load sits on a key range too hot for its one node (more nodes would not cool it).
   */
  nodesNeeded: number | null;
  /** The largest row the workload builds under this key (row-size.ts); null when not modelled. */
  largestRow: LargestRow | null;
}

export function scoreDesign(
  result: DesignResult,
  footprint: KeyFootprint,
  baseline: KeyFootprint,
  targets: AdviceTargets,
  storage: StoragePlan,
): DesignScores {
  const steady = result.summary.steadyState;
  const { hottestNodeCpu: hottestCpu, averageNodeCpu: averageCpu, maxOverMedian } = steady;
  const retention = storage.retention;
  // Without a retention or a windowed read nothing says how long rows stay: what the run wrote.
  const stored =
    retention === undefined
      ? result.summary.guidance.storage.bytes
      : storedBytes(footprint.bytesPerS, retention.seconds, storage);
  const needed = nodesNeeded(
    {
      nodes: result.nodes,
      averageCpu,
      hottestCpu,
      maxOverMedian,
      nodeScalingFactor: result.nodeScalingFactor,
    },
    targets,
    stored,
    storage,
  );
  const rowsPerDay = footprint.rowsPerS * 86400;
  return {
    nodes: result.nodes,
    nodeScalingFactor: result.nodeScalingFactor,
    costPerHour: result.costPerHour,
    buckets: result.schema.bucketCount,
    hottestCpu,
    averageCpu,
    maxOverMedian,
    peakHottestCpu: result.summary.hottestNodeCpu.max,
    writeP99Ms: result.summary.writes.p99Ms,
    writeShedShare: steady.shedWriteShare,
    bytesPerS: footprint.bytesPerS,
    storedBytes: stored,
    storagePerNode: stored / result.nodes / storage.plannedBytesPerNode,
    reads: result.summary.reads.map(({ name, kind, perS, fanout, p99Ms, rowsReadPerRead, shedShare }) => ({
      name,
      kind,
      perS,
      fanout,
      p99Ms,
      rowsReadPerRead,
      shedShare,
    })),
    clientCores: result.clientCores,
    keyBytesPerRow: footprint.keyBytesPerRow,
    saltBytesPerRow: footprint.saltBytesPerRow,
    rowsPerDay,
    keyOverheadBytesPerDay:
      footprint.keyBytesPerRow * rowsPerDay - baseline.keyBytesPerRow * baseline.rowsPerS * 86400,
    nodesNeeded: needed.total,
    largestRow: result.summary.guidance.largestRow,
  };
}

export const percent = (share: number) => `${Math.round(share * 100)}%`;

/**
 * A target: `shed`: writes shed in the steady state; `storage`: more bytes per node than planned; `headroom`: misses a target at twice the write rate;
 * `buckets`: fewer salt buckets than nodes; `read`: a declared read is not a key range;
 * `row`: one row holds more than Google's recommended 100 MB.
 */
export type TargetName = keyof AdviceTargets | "shed" | "storage" | "headroom" | "buckets" | "read" | "row";

/** A target a design misses, with what was measured and the limit; target-failure-text.ts says it in words. */
export type TargetFailure =
  /** A new salted table's hottest node while it warms up, over `buckets` buckets on `nodes` nodes. */
  | { target: "warmUpCpu"; cpu: number; limit: number; buckets: number; nodes: number }
  | { target: "hottestCpu" | "averageCpu"; cpu: number; limit: number }
  /** The share of writes shed in the steady state. */
  | { target: "shed"; share: number; limit: number }
  /** The bytes per node as a share of the planned storage per node. */
  | { target: "storage"; share: number }
  | { target: "row"; largestRow: LargestRow }
  /** A declared read no key range serves, and why. */
  | { target: "read"; read: string; reason: string }
  /** Fewer salt buckets than the nodes the writes need. */
  | { target: "buckets"; buckets: number; nodes: number };

/** The targets a design misses; empty when it meets them all. */
export function failedTargets(scores: DesignScores, targets: AdviceTargets): TargetFailure[] {
  const failures: TargetFailure[] = [];
  if (scores.buckets > 1 && scores.peakHottestCpu > targets.warmUpCpu)
    failures.push({
      target: "warmUpCpu",
      cpu: scores.peakHottestCpu,
      limit: targets.warmUpCpu,
      buckets: scores.buckets,
      nodes: scores.nodes,
    });
  if (scores.hottestCpu > targets.hottestCpu)
    failures.push({ target: "hottestCpu", cpu: scores.hottestCpu, limit: targets.hottestCpu });
  if (scores.averageCpu > targets.averageCpu)
    failures.push({ target: "averageCpu", cpu: scores.averageCpu, limit: targets.averageCpu });
  if (scores.writeShedShare > MAX_SHED_SHARE)
    failures.push({ target: "shed", share: scores.writeShedShare, limit: MAX_SHED_SHARE });
  if (scores.storagePerNode > 1) failures.push({ target: "storage", share: scores.storagePerNode });
  if (scores.largestRow?.ok === false) failures.push({ target: "row", largestRow: scores.largestRow });
  return failures;
}

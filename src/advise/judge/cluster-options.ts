/**
 * The cluster options Google added, judged for a scenario's answer (sources in
 * sim/scenario/cluster-options.ts and model-constants.ts):
 *
 * - The autoscaler's own targets for the recommended design: the CPU target, the storage target
 *   (which sizes storage: Google's default 2,560 GiB per SSD node is half the node's 5 TiB, so an
 *   autoscaled storage-bound cluster runs more nodes than the 70 % plan), the node range, and
 *   Bigtable's rule that the maximum is at most 10 × the minimum.
 * - 2× node scaling for the current key where one hot key range, not the total, sizes the cluster:
 *   its load on a compute node of two standard nodes is half of that node, so the hottest node's CPU
 *   halves and the total's does not. It needs a new cluster (chosen at creation, SSD only).
 * - Tiered storage (Preview) where the retention is longer than the threshold (at least 30 days)
 *   and the reads of data older than it fit the infrequent tier's rates (100 rows/s, 36 MB/s per
 *   node): the cells younger than the threshold stay on SSD, the rest costs the infrequent tier's
 *   price, and a node holds up to 32 TB of which at most 5 TB on SSD.
 */

import { constantAt } from "../../sim/cluster/model-constants.js";
import { limitBytesPerNode, plannedShare, roundUpToStep } from "../../sim/cluster/storage-target.js";
import { coldReadsFit, tieredBytes } from "../../sim/cluster/tiered-storage.js";
import { SETTLED_RATIO } from "../../sim/results/summary.js";
import {
  MAX_OVER_MIN_NODES,
  MIN_COLD_AFTER_S,
  STORAGE_TARGET_GIB,
  storageTargetGiB,
} from "../../sim/scenario/cluster-options.js";
import type { Scenario } from "../../sim/scenario/scenario.js";
import { type MonthlyCost, monthlyCost } from "../size/cost.js";
import { price } from "../size/prices.js";
import { type CpuTargets, cpuNodes, type StoragePlan, storageNodes } from "../size/sizing.js";
import type { JudgedCandidate } from "./recommend.js";

const GIB = 2 ** 30;

/** The targets to set on the answer's cluster, and what the storage target does to its node count. */
export interface AutoscalerTargets {
  design: string;
  /** The scenario declares `cluster.autoscaling` (its values are used and checked). */
  declared: boolean;
  cpuTarget: number;
  storageTargetGiBPerNode: number;
  minNodes: number;
  maxNodes: number;
  /** Bytes kept at the stated growth. */
  storedBytes: number;
  /** Nodes the bytes need at the autoscaler's storage target, and at the manual plan's share of a node's limit (70 %). */
  storageNodesAtTarget: number;
  storageNodesAtPlannedShare: number;
  /** The storage target that plans a node as the manual plan does (limit × 70 %), within Bigtable's range. */
  storageTargetForPlannedShare: number;
  /** Nodes the design needs under the autoscaler (CPU and storage at its target); null when no count cools a key range. */
  nodesNeeded: number | null;
  /** Bigtable's rule: maxNodes ≤ 10 × minNodes. */
  maxWithinTenTimesMin: boolean;
  /** The range reaches the nodes needed. */
  coversNeeded: boolean;
}

export interface NodeScalingOption {
  design: string;
  /** Offered: 2× needs fewer nodes than standard nodes, or standard nodes cannot cool the hot range at all. */
  offered: boolean;
  /** Nodes at factor 1 and at factor 2 (even), at the stated growth; null: no count cools the hot range. */
  nodesAt1x: number | null;
  nodes: number | null;
  /** The hottest node's CPU today: a standard node's, and the compute node's at 2×. */
  hottestCpuAt1x: number;
  hottestCpuAt2x: number;
  /** The factor is chosen when a cluster is created: an existing cluster cannot switch. */
  needsNewCluster: true;
  cost?: MonthlyCost;
}

export interface TieredStorageOption {
  design: string;
  /** Tiered storage is a Preview feature (Google, "Tiered storage overview"). */
  preview: true;
  offered: boolean;
  /** Why not offered, or `fits`. */
  reason:
    | "fits"
    | "no retention"
    | "retention within threshold"
    | "HDD"
    | "cold reads exceed the tier"
    | "no fewer nodes";
  coldAfterS: number;
  retentionS: number | null;
  ssdBytes: number;
  infrequentBytes: number;
  /** Rows per second and bytes scanned per second the declared reads ask of cells older than the threshold. */
  coldRowsPerS: number;
  coldScanBytesPerS: number;
  coldReadsFit: boolean;
  nodes: number | null;
  ssdOnlyNodes: number | null;
  cost?: MonthlyCost & { infrequentStorage: number };
  ssdOnlyCost?: MonthlyCost;
}

export interface ClusterOptions {
  autoscaler: AutoscalerTargets;
  nodeScaling?: NodeScalingOption;
  tieredStorage: TieredStorageOption;
}

interface Plan {
  targets: CpuTargets;
  growth: number;
  storagePlan: StoragePlan;
}

export function clusterOptions(
  scenario: Scenario,
  answer: JudgedCandidate,
  currentKey: JudgedCandidate | undefined,
  plan: Plan,
): ClusterOptions {
  const nodeScaling = currentKey ? nodeScalingOption(scenario, currentKey, plan) : undefined;
  return {
    autoscaler: autoscalerTargets(scenario, answer, plan),
    ...(nodeScaling ? { nodeScaling } : {}),
    tieredStorage: tieredStorageOption(scenario, answer, plan),
  };
}

const factorOf = (evaluated: JudgedCandidate) => evaluated.scores.nodeScalingFactor;

function autoscalerTargets(scenario: Scenario, answer: JudgedCandidate, plan: Plan): AutoscalerTargets {
  const storage = plan.storagePlan;
  const declared = scenario.cluster.autoscaling;
  const step = factorOf(answer);
  const targetGiB = storageTargetGiB(declared ?? {}, storage.storage, scenario.cluster.storage);
  const bytes = answer.sizing.atGrowth.storedBytes;
  const atTarget = (perNode: number) =>
    storageNodes(
      bytes,
      { ...storage, planning: { ...storage.planning, plannedBytesPerNode: perNode } },
      step,
    );
  const storageNodesAtTarget = atTarget(targetGiB * GIB);
  const plannedPerNode = limitBytesPerNode(scenario, storage.storage) * plannedShare(scenario);
  const cpu = answer.sizing.atGrowth.cpu;
  const nodesNeeded = cpu === null ? null : Math.max(cpu, storageNodesAtTarget);
  const range = STORAGE_TARGET_GIB[storage.storage];
  // Without a declared range: up to the nodes needed at the growth (or the cycle's peak), down to
  // the CPU floor (the storage target keeps the bytes' nodes anyway), within Bigtable's 10× rule.
  const maxNodes =
    declared?.maxNodes ??
    roundUpToStep(Math.max(nodesNeeded ?? answer.nodes, answer.autoscaled?.maxNodes ?? 0), step);
  const floor = answer.autoscaled?.minNodes ?? answer.sizing.today.cpu ?? answer.nodes;
  const minNodes =
    declared?.minNodes ??
    roundUpToStep(Math.max(floor, Math.ceil(maxNodes / MAX_OVER_MIN_NODES - 1e-9), 1), step);
  return {
    design: answer.candidate.name,
    declared: declared !== undefined,
    cpuTarget: declared?.cpuTarget ?? answer.autoscaled?.cpuTarget ?? plan.targets.averageCpu,
    storageTargetGiBPerNode: targetGiB,
    minNodes,
    maxNodes,
    storedBytes: bytes,
    storageNodesAtTarget,
    storageNodesAtPlannedShare: atTarget(plannedPerNode),
    storageTargetForPlannedShare: Math.min(range.max, Math.max(range.min, Math.floor(plannedPerNode / GIB))),
    nodesNeeded,
    maxWithinTenTimesMin: maxNodes <= MAX_OVER_MIN_NODES * minNodes,
    coversNeeded: nodesNeeded !== null && maxNodes >= nodesNeeded,
  };
}

/** 2× node scaling for the current key when its load sits on a key range (one hot tablet sizes the cluster). */
function nodeScalingOption(
  scenario: Scenario,
  current: JudgedCandidate,
  plan: Plan,
): NodeScalingOption | undefined {
  const { scores, sizing } = current;
  const storage = current.result.storage;
  if (storage !== "ssd" || factorOf(current) !== 1 || scores.maxOverMedian <= SETTLED_RATIO) return undefined;
  // On a compute node of two standard nodes the hot range is half the node; the average per compute node is unchanged.
  const hottestCpuAt2x = scores.hottestCpu / constantAt("computeNodeStandardNodes", "default");
  const cpu = cpuNodes(
    { ...scores, hottestCpu: hottestCpuAt2x, nodeScalingFactor: 2 },
    plan.targets,
    plan.growth,
  );
  const nodes =
    cpu === null ? null : Math.max(cpu, storageNodes(sizing.atGrowth.storedBytes, plan.storagePlan, 2));
  const nodesAt1x = sizing.atGrowth.total;
  return {
    design: current.candidate.name,
    offered: nodes !== null && (nodesAt1x === null || nodes < nodesAt1x),
    nodesAt1x,
    nodes,
    hottestCpuAt1x: scores.hottestCpu,
    hottestCpuAt2x,
    needsNewCluster: true,
    ...(nodes === null ? {} : { cost: monthlyCost(scenario, nodes, "ssd", sizing.atGrowth.storedBytes) }),
  };
}

function tieredStorageOption(scenario: Scenario, answer: JudgedCandidate, plan: Plan): TieredStorageOption {
  const { storagePlan: storage, growth } = plan;
  const coldAfterS = scenario.cluster.tieredStorage?.coldAfter ?? MIN_COLD_AFTER_S;
  const retentionS = storage.retention?.seconds ?? null;
  const bytes = answer.sizing.atGrowth.storedBytes;
  const split =
    retentionS === null ? { ssd: bytes, infrequent: 0 } : tieredBytes(bytes, { coldAfterS, retentionS });
  const demand = coldDemand(scenario, answer, coldAfterS, growth);
  const step = factorOf(answer);
  const cpu = answer.sizing.atGrowth.cpu;
  const ssdOnlyNodes =
    cpu === null
      ? null
      : Math.max(
          cpu,
          storageNodes(bytes, { ...storage, planning: { ...storage.planning, tiered: undefined } }, step),
        );
  const share = plannedShare(scenario);
  const tieredStorageNodes =
    retentionS === null
      ? null
      : storageNodes(
          bytes,
          {
            ...storage,
            planning: {
              ...storage.planning,
              tiered: {
                coldAfterS,
                retentionS,
                share: storage.plannedBytesPerNode / limitBytesPerNode(scenario, "ssd"),
                ssdBytesPerNode: constantAt("tieredSsdBytesPerNode", "default"),
                tieredBytesPerNode: constantAt("tieredBytesPerNode", "default"),
              },
            },
          },
          step,
        );
  const nodes = cpu === null || tieredStorageNodes === null ? null : Math.max(cpu, tieredStorageNodes);
  const fits =
    nodes !== null &&
    coldReadsFit(
      demand,
      {
        readsPerS: constantAt("coldReadsPerS", "default"),
        scanBytesPerS: constantAt("coldScanBytesPerS", "default"),
      },
      nodes,
      share,
    );
  const reason: TieredStorageOption["reason"] =
    retentionS === null
      ? "no retention"
      : storage.storage === "hdd"
        ? "HDD"
        : retentionS <= coldAfterS
          ? "retention within threshold"
          : !fits
            ? "cold reads exceed the tier"
            : nodes === null || ssdOnlyNodes === null || nodes >= ssdOnlyNodes
              ? "no fewer nodes"
              : "fits";
  const offered = reason === "fits";
  const infrequentStorage = (split.infrequent / GIB) * price(scenario, "bigtable.infrequentGiBMonth");
  const onSsd = nodes === null ? undefined : monthlyCost(scenario, nodes, "ssd", split.ssd);
  return {
    design: answer.candidate.name,
    preview: true,
    offered,
    reason,
    coldAfterS,
    retentionS,
    ssdBytes: split.ssd,
    infrequentBytes: split.infrequent,
    coldRowsPerS: demand.rowsPerS,
    coldScanBytesPerS: demand.scanBytesPerS,
    coldReadsFit: fits,
    nodes,
    ssdOnlyNodes,
    ...(onSsd
      ? {
          cost: {
            nodes: onSsd.nodes,
            storage: onSsd.storage + infrequentStorage,
            total: onSsd.total + infrequentStorage,
            infrequentStorage,
          },
        }
      : {}),
    ...(ssdOnlyNodes === null ? {} : { ssdOnlyCost: monthlyCost(scenario, ssdOnlyNodes, "ssd", bytes) }),
  };
}

/**
 * What the declared reads ask of cells older than the threshold, at the stated growth: a get over a
 * window W lands uniformly in it, so (W − T)/W of them read the infrequent tier; a scan over W reads
 * that share of its rows there; a latest-N read stays on the newest cells.
 */
function coldDemand(scenario: Scenario, answer: JudgedCandidate, coldAfterS: number, growth: number) {
  const { scores } = answer;
  const rowsPerS = scores.rowsPerDay / 86_400;
  const rowBytes = rowsPerS > 0 ? scores.bytesPerS / rowsPerS : 0;
  const served = new Map(scores.reads.map((read) => [read.name, read]));
  let cold = 0;
  let scanBytes = 0;
  for (const read of scenario.workload.reads) {
    if (read.kind === "latest" || read.window <= coldAfterS) continue;
    const older = (read.window - coldAfterS) / read.window;
    if (read.kind === "get") cold += read.perS * growth * older;
    else scanBytes += read.perS * growth * (served.get(read.name)?.rowsReadPerRead ?? 0) * older * rowBytes;
  }
  return { rowsPerS: cold, scanBytesPerS: scanBytes };
}

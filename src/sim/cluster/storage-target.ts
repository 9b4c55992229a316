/**
 * How many bytes a node is planned to hold, and how many nodes a number of bytes needs. One rule
 * for the simulator's guidance and the advisor's sizing:
 *
 * - Manual node allocation: Google's storage target, a share of the node's limit (70 %,
 *   model-constants.ts `storageTarget`; "Monitor an instance").
 * - An autoscaled cluster (`cluster.autoscaling`): the autoscaler keeps storage at its own target,
 *   GiB per node (default 2,560 on SSD, 8,192 on HDD; Admin API `AutoscalingTargets`), and runs at
 *   least the nodes that target needs ("Autoscaling", https://cloud.google.com/bigtable/docs/autoscaling:
 *   the autoscaler takes the larger of the CPU and the storage node counts) — 2,560 GiB is half of
 *   an SSD node's 5 TiB, so an autoscaled storage-bound cluster runs more nodes than the 70 % plan.
 * - Tiered storage (`cluster.tieredStorage`, tiered-storage.ts): bytes younger than the threshold on
 *   SSD within the SSD plan, and all the bytes within the tiered node's limit at the same share.
 * - 2× node scaling: node counts in increments of two.
 */

import { storageTargetGiB } from "../scenario/cluster-options.js";
import type { Scenario, Storage } from "../scenario/scenario.js";
import { constantAt, type ModelEnd } from "./model-constants.js";
import { type TieredPlan, tieredNodesFractional } from "./tiered-storage.js";

const GIB = 2 ** 30;

/** What sizes storage: bytes per node on one storage type, and the tiers when tiered storage is on. */
export interface StoragePlanning {
  /** Bytes per node planned for (all on SSD or HDD). */
  plannedBytesPerNode: number;
  /** `autoscaler`: the autoscaler's storage target; `limit share`: the node's limit × Google's storage target. */
  basis: "autoscaler" | "limit share";
  /** Present when the scenario declares tiered storage (SSD only). */
  tiered?: TieredPlan;
  /** Node counts come in multiples of this (2 under 2× node scaling). */
  nodeStep: 1 | 2;
}

/** Bytes per node planned for on `storage` at `end` of the model's ranges. */
export function plannedBytesPerNode(
  scenario: Scenario,
  storage: Storage,
  end: ModelEnd = "default",
): Pick<StoragePlanning, "plannedBytesPerNode" | "basis"> {
  const { cluster } = scenario;
  if (cluster.autoscaling)
    return {
      plannedBytesPerNode: storageTargetGiB(cluster.autoscaling, storage, cluster.storage) * GIB,
      basis: "autoscaler",
    };
  return {
    plannedBytesPerNode: limitBytesPerNode(scenario, storage, end) * plannedShare(scenario, end),
    basis: "limit share",
  };
}

/** A node's storage limit on `storage` (the scenario may set it). */
export function limitBytesPerNode(scenario: Scenario, storage: Storage, end: ModelEnd = "default"): number {
  return constantAt(
    storage === "ssd" ? "ssdStorageBytesPerNode" : "hddStorageBytesPerNode",
    end,
    scenario.cluster.storageLimitBytes,
  );
}

/** Google's storage target as a share of a node's limit (the scenario may set it). */
export function plannedShare(scenario: Scenario, end: ModelEnd = "default"): number {
  return constantAt("storageTarget", end, scenario.cluster.storageTarget);
}

/** The storage planning of a design on `storage` created with node scaling factor `factor`. */
export function storagePlanning(
  scenario: Scenario,
  storage: Storage,
  factor: 1 | 2,
  retentionS: number | null,
  end: ModelEnd = "default",
): StoragePlanning {
  const planned = plannedBytesPerNode(scenario, storage, end);
  const tiered = scenario.cluster.tieredStorage;
  return {
    ...planned,
    nodeStep: factor,
    ...(tiered && storage === "ssd" && retentionS !== null
      ? {
          tiered: {
            coldAfterS: tiered.coldAfter,
            retentionS,
            // The same share of the tiered node's limit as the plan takes of an SSD node's.
            share: planned.plannedBytesPerNode / limitBytesPerNode(scenario, "ssd", end),
            ssdBytesPerNode: constantAt("tieredSsdBytesPerNode", end),
            tieredBytesPerNode: constantAt("tieredBytesPerNode", end),
          },
        }
      : {}),
  };
}

/** Nodes (fractional) that hold `bytes` exactly at the plan's binding limit. */
export function storageNodesFractional(bytes: number, planning: StoragePlanning): number {
  return planning.tiered
    ? tieredNodesFractional(bytes, planning.tiered)
    : bytes / planning.plannedBytesPerNode;
}

/** Fewest nodes holding `bytes` within the plan (at least one step), in whole steps. */
export function storageNodesNeeded(bytes: number, planning: StoragePlanning): number {
  const nodes = Math.ceil(storageNodesFractional(bytes, planning) - 1e-9);
  return roundUpToStep(Math.max(1, nodes), planning.nodeStep);
}

/** `nodes` rounded up to a multiple of `step` (2× node scaling counts nodes in twos). */
export function roundUpToStep(nodes: number, step: number): number {
  return Math.ceil(nodes / step - 1e-9) * step;
}

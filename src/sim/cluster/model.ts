/**
 * The cluster model a run uses: the constants of model-constants.ts at one end of their ranges,
 * with whatever the scenario sets fixed.
 */

import type { NodeScalingFactor } from "../scenario/cluster-options.js";
import { impliedRetention } from "../scenario/retention.js";
import type { Scenario, ScenarioDesign, Storage, TableSplits } from "../scenario/scenario.js";
import type { CostModel } from "./cluster.js";
import { type ConstantName, constantAt, MODEL_CONSTANTS, type ModelEnd } from "./model-constants.js";
import { limitBytesPerNode, type StoragePlanning, storagePlanning } from "./storage-target.js";

export interface TabletSettings {
  /** How a new table was created: split points, or at its salt's bucket boundaries. */
  splits: TableSplits;
  splitOpsPerS: number;
  splitCpuShare: number;
  splitSustain: number;
  splitBytes: number;
  balancePeriod: number;
  rebalanceTime: number;
  imbalance: number;
  minCpuGap: number;
  mergeLoadShare: number;
  mergeAge: number;
}

export interface LatencySettings {
  baseMs: number;
  serviceMs: number;
  queueBoundMs: number;
}

export interface StorageModel {
  /** A standard node's limit. */
  limitBytesPerNode: number;
  /** Bytes per standard node planned for, tiers and node step (storage-target.ts). */
  planning: StoragePlanning;
  compression: number;
}

export interface Model {
  end: ModelEnd;
  storage: Storage;
  /**
   * 2: the cluster was created with two standard nodes per compute node (Google, "Scaling"). The
   * simulator runs half as many compute nodes, each with `cost.capacity` of two standard nodes, so a
   * tablet's ceiling and the balancer's granularity follow the compute node.
   */
  nodeScalingFactor: NodeScalingFactor;
  cost: CostModel;
  tablets: TabletSettings;
  latency: LatencySettings;
  storageLimits: StorageModel;
}

export function resolveModel(scenario: Scenario, design: ScenarioDesign, end: ModelEnd): Model {
  const storage = design.storage ?? scenario.cluster.storage;
  const ssd = storage === "ssd";
  const at = (name: ConstantName, override?: number) => constantAt(name, end, override);
  const { capacity } = scenario.cluster;
  const factor = nodeScalingFactorOf(scenario, design);
  // A compute node of a 2x cluster has the capacity of its standard nodes.
  const perComputeNode = factor === 1 ? 1 : at("computeNodeStandardNodes");
  const tablets = scenario.tablets;
  const latency = scenario.latency;
  return {
    end,
    storage,
    nodeScalingFactor: factor,
    cost: {
      capacity: {
        writesPerS: perComputeNode * at(ssd ? "ssdWritesPerS" : "hddWritesPerS", capacity.writesPerS),
        readsPerS: perComputeNode * at(ssd ? "ssdReadsPerS" : "hddReadsPerS", capacity.readsPerS),
        scanBytesPerS:
          perComputeNode * at(ssd ? "ssdScanBytesPerS" : "hddScanBytesPerS", capacity.scanBytesPerS),
      },
      fixedCostShare: at("fixedCostShare", scenario.cluster.fixedCostShare),
      scanFixedCostShare: at("scanFixedCostShare", scenario.cluster.scanFixedCostShare),
      // An SSD read's storage time is inside serviceMs; an HDD read waits for a disk seek first.
      readSeekMs: ssd ? 0 : at("hddSeekMs", latency.hddSeekMs),
    },
    tablets: {
      splits: design.splits ?? tablets.splits,
      splitOpsPerS: at("splitOpsPerS", tablets.splitOpsPerS),
      splitCpuShare: at("splitCpuShare", tablets.splitCpuShare),
      splitSustain: at("splitSustainS", tablets.splitSustain),
      splitBytes: at("splitBytes", tablets.splitBytes),
      balancePeriod: at("balancePeriodS", tablets.balancePeriod),
      rebalanceTime: at("rebalanceS", tablets.rebalanceTime),
      imbalance: at("imbalance", tablets.imbalance),
      minCpuGap: at("minCpuGap", tablets.minCpuGap),
      mergeLoadShare: at("mergeLoadShare", tablets.mergeLoadShare),
      mergeAge: at("mergeAgeS", tablets.mergeAge),
    },
    latency: {
      baseMs: at("baseMs", latency.baseMs),
      serviceMs: at("serviceMs", latency.serviceMs),
      queueBoundMs: at("queueBoundMs", latency.queueBoundMs),
    },
    storageLimits: {
      limitBytesPerNode: limitBytesPerNode(scenario, storage, end),
      planning: storagePlanning(scenario, storage, factor, impliedRetention(scenario)?.seconds ?? null, end),
      compression: at("compression", scenario.workload.compression),
    },
  };
}

/** The design's node scaling factor: its own, else the scenario's (1 when neither says). */
export function nodeScalingFactorOf(
  scenario: Scenario,
  design: Pick<ScenarioDesign, "nodeScalingFactor">,
): NodeScalingFactor {
  return design.nodeScalingFactor ?? scenario.cluster.nodeScalingFactor ?? 1;
}

/** A node's published capacity for `storage` (the constants' defaults). */
export function defaultCapacity(storage: Storage): CostModel["capacity"] {
  const ssd = storage === "ssd";
  return {
    writesPerS: MODEL_CONSTANTS[ssd ? "ssdWritesPerS" : "hddWritesPerS"].value,
    readsPerS: MODEL_CONSTANTS[ssd ? "ssdReadsPerS" : "hddReadsPerS"].value,
    scanBytesPerS: MODEL_CONSTANTS[ssd ? "ssdScanBytesPerS" : "hddScanBytesPerS"].value,
  };
}

/** What an operation costs a node of `storage` at the constants' defaults. */
export function defaultCostModel(storage: Storage): CostModel {
  return {
    capacity: defaultCapacity(storage),
    fixedCostShare: MODEL_CONSTANTS.fixedCostShare.value,
    scanFixedCostShare: MODEL_CONSTANTS.scanFixedCostShare.value,
    readSeekMs: storage === "ssd" ? 0 : MODEL_CONSTANTS.hddSeekMs.value,
  };
}

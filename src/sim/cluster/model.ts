/**
 * The cluster model a run uses: the constants of model-constants.ts at one end of their ranges,
 * with whatever the scenario sets fixed.
 */

import type { Scenario, ScenarioDesign, Storage, TableSplits } from "../scenario/scenario.js";
import type { CostModel } from "./cluster.js";
import { type ConstantName, constantAt, MODEL_CONSTANTS, type ModelEnd } from "./model-constants.js";

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
  limitBytesPerNode: number;
  /** Share of the limit to plan for (Google's guidance). */
  target: number;
  compression: number;
}

export interface Model {
  end: ModelEnd;
  storage: Storage;
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
  const tablets = scenario.tablets;
  const latency = scenario.latency;
  return {
    end,
    storage,
    cost: {
      capacity: {
        writesPerS: at(ssd ? "ssdWritesPerS" : "hddWritesPerS", capacity.writesPerS),
        readsPerS: at(ssd ? "ssdReadsPerS" : "hddReadsPerS", capacity.readsPerS),
        scanBytesPerS: at(ssd ? "ssdScanBytesPerS" : "hddScanBytesPerS", capacity.scanBytesPerS),
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
      limitBytesPerNode: at(
        ssd ? "ssdStorageBytesPerNode" : "hddStorageBytesPerNode",
        scenario.cluster.storageLimitBytes,
      ),
      target: at("storageTarget", scenario.cluster.storageTarget),
      compression: at("compression", scenario.workload.compression),
    },
  };
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

/**
 * When storage, not CPU, sizes the cluster: the two ways to buy fewer nodes, in nodes and dollars.
 *
 * - HDD: a node holds 16 TB instead of 5 (Google, "Quotas and limits") but reads 500 rows/s instead
 *   of 17,000 (Google, "Understand performance"); Google advises HDD for 10 TB or more that no
 *   latency-sensitive reads depend on ("Choose between SSD and HDD storage",
 *   https://cloud.google.com/bigtable/docs/choosing-ssd-hdd). The rule here: the declared reads
 *   tolerate HDD when, on HDD, storage still sizes the cluster — their rows per second need no
 *   more HDD nodes than the bytes do. The HDD CPU is the simulated CPU scaled by what the same
 *   operations cost on an HDD node against an SSD node (cluster.ts's cost model).
 * - Keep fewer days: the fleet incident's answer — serve long scans from an analytical store and
 *   keep Bigtable for recent windows. Bigtable keeps the longest window the remaining reads need
 *   (at least a day) and `keyspread export` moves the rest; the analytical store's own cost is not
 *   priced here.
 */
import { rangeReadCost, writeCost } from "../../sim/cluster/cluster.js";
import { resolveModel } from "../../sim/cluster/model.js";
import type { ReadPattern, Scenario, Storage } from "../../sim/scenario/scenario.js";
import { type MonthlyCost, monthlyCost } from "../size/cost.js";
import {
  type CpuTargets,
  cpuNodes,
  type StoragePlan,
  storageNodes,
  storagePlan,
  storedBytes,
} from "../size/sizing.js";
import { isAnalytical } from "./beyond-the-key.js";
import type { EvaluatedCandidate, JudgedCandidate } from "./recommend.js";

const DAY_S = 86400;

export interface StorageOptions {
  /** The design's own storage, at the stated growth: nodes and $/month. */
  current: { storage: Storage; nodes: number; cost: MonthlyCost };
  /** The same design on HDD (absent when it already is on HDD). */
  hdd?: HddOption;
  /** Keep `keepS` in Bigtable and export the rest (absent when the retention is no longer than that). */
  keepFewerDays?: { keepS: number; retentionS: number; nodes: number; cost: MonthlyCost };
}

/** The same design on HDD: its nodes and cost, or none when its load sits on a key range no HDD node count cools. */
export type HddOption =
  | {
      cpuNodes: number;
      storageNodes: number;
      /** Storage still sizes the cluster on HDD: the declared reads tolerate it. */
      readsTolerate: boolean;
      nodes: number;
      cost: MonthlyCost;
    }
  | { cpuNodes: null; storageNodes: number; readsTolerate: false; nodes: null; cost?: undefined };

interface SizingPlan {
  targets: CpuTargets;
  growth: number;
  storagePlan: StoragePlan;
}

/** HDD and keep-fewer-days options for a storage-bound design; undefined when CPU sizes it. */
export function storageOptions(
  scenario: Scenario,
  evaluated: EvaluatedCandidate,
  plan: SizingPlan,
): StorageOptions | undefined {
  if (evaluated.kind === "failed") return undefined;
  const { sizing, scores, cost } = evaluated;
  const retention = plan.storagePlan.retention;
  if (!cost || sizing.atGrowth.bound !== "storage" || !retention) return undefined;
  const { growth } = plan;
  const storage = plan.storagePlan.storage;
  const current = { storage, nodes: sizing.atGrowth.total, cost };
  const rows = new Map(evaluated.scores.reads.map((read) => [read.name, read.rowsReadPerRead]));
  const keepS = keptInBigtable(
    scenario,
    (read) => read.kind === "scan" && isAnalytical(read.window, rows.get(read.name) ?? 0),
  );
  const cpu = sizing.atGrowth.cpu;
  const keepFewerDays =
    keepS < retention.seconds
      ? (() => {
          const bytes = storedBytes(scores.bytesPerS, keepS, plan.storagePlan, growth);
          const nodes = Math.max(cpu, storageNodes(bytes, plan.storagePlan));
          return {
            keepS,
            retentionS: retention.seconds,
            nodes,
            cost: monthlyCost(scenario, nodes, storage, bytes),
          };
        })()
      : undefined;
  return {
    current,
    ...(storage === "hdd" ? {} : { hdd: onHdd(scenario, evaluated, plan) }),
    ...(keepFewerDays ? { keepFewerDays } : {}),
  };
}

function onHdd(scenario: Scenario, evaluated: JudgedCandidate, plan: SizingPlan): HddOption {
  const scores = evaluated.scores;
  const hddPlan = storagePlan(scenario, "hdd");
  const ratio = operationsCost(scenario, evaluated, "hdd") / operationsCost(scenario, evaluated, "ssd");
  const cpu = cpuNodes(
    {
      nodes: scores.nodes,
      averageCpu: scores.averageCpu * ratio,
      hottestCpu: scores.hottestCpu * ratio,
      maxOverMedian: scores.maxOverMedian,
    },
    plan.targets,
    plan.growth,
  );
  const bytes = scores.storedBytes * plan.growth;
  const storage = storageNodes(bytes, hddPlan);
  if (cpu === null) return { cpuNodes: cpu, storageNodes: storage, readsTolerate: false, nodes: null };
  const nodes = Math.max(cpu, storage);
  return {
    cpuNodes: cpu,
    storageNodes: storage,
    readsTolerate: cpu <= storage,
    nodes,
    cost: monthlyCost(scenario, nodes, "hdd", bytes),
  };
}

/** Node-seconds per second the design's writes and declared reads cost on one storage type, at the published capacities. */
function operationsCost(scenario: Scenario, evaluated: JudgedCandidate, storage: Storage): number {
  const scores = evaluated.scores;
  // The scenario's own constants at their defaults, on the storage type asked about.
  const model = resolveModel(scenario, { ...evaluated.candidate.design, storage }, "default").cost;
  const rowBytes = scores.bytesPerS / Math.max(scores.rowsPerDay / DAY_S, Number.MIN_VALUE);
  const writes = (scores.rowsPerDay / DAY_S) * writeCost(rowBytes, model);
  const reads = scores.reads.reduce(
    (sum, read) =>
      sum + read.perS * read.fanout * rangeReadCost(read.rowsReadPerRead / read.fanout, rowBytes, model),
    0,
  );
  return writes + reads;
}

/** The longest window the reads that stay in Bigtable need (those `movesOut` leave), at least a day, in whole days. */
export function keptInBigtable(scenario: Scenario, movesOut: (read: ReadPattern) => boolean): number {
  const windows = scenario.workload.reads.flatMap((read) =>
    read.kind === "latest" || movesOut(read) ? [] : [read.window],
  );
  return Math.max(1, Math.ceil(Math.max(0, ...windows) / DAY_S)) * DAY_S;
}

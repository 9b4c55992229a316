/**
 * A design's summary from its time series: the headline CPU figures, when it settled, its steady
 * state after the model's warm-up window, and Google's capacity guidance — average CPU ≤ 70 %,
 * hottest node ≤ 90 % (Google Cloud, "Monitor an instance",
 * https://cloud.google.com/bigtable/docs/monitoring-instance) and storage per node within its
 * planned share of the node's limit — with the nodes the design needs for CPU and for storage.
 */
import { mean } from "../../stats/mean.js";
import type { Model } from "../cluster/model.js";
import { storageNodesFractional, storageNodesNeeded } from "../cluster/storage-target.js";
import type { EngineOutput } from "../engine/engine.js";
import type { JudgedPoint, TimelinePoint } from "../engine/measurements.js";
import type { RunPlan } from "../scenario/cycle.js";
import type { LargestRow } from "../workload/row-size.js";
import { cpuNodesNeeded } from "./nodes-needed.js";
import type { CycleSummary, DesignSummary, Guidance, SteadyState } from "./results.js";

export const AVERAGE_CPU_LIMIT = 0.7;
/** Each rebalance time closes 90 % of an imbalance: three close 99.9 %, from a new table on one node to flat. */
const REBALANCE_TIMES_TO_WARM_UP = 3;

/** The model's warm-up window, and from when a run of `durationS` counts as steady: the window, or the second half of a shorter run. */
export function warmUp(model: Model, durationS: number): { warmUpS: number; steadyFromS: number } {
  const warmUpS = REBALANCE_TIMES_TO_WARM_UP * model.tablets.rebalanceTime;
  return { warmUpS, steadyFromS: Math.min(warmUpS, durationS / 2) };
}
export const HOTTEST_CPU_LIMIT = 0.9;
/**
 * The CPU an autoscaler holds unless the scenario sets `cluster.autoscaling.cpuTarget`: Google's
 * average-CPU recommendation (Bigtable accepts a target from 10 % to 80 %).
 */
export const AUTOSCALER_CPU_TARGET = AVERAGE_CPU_LIMIT;
/** Hottest/median at or under this counts as balanced: the load is spread, so nodes scale it. */
export const SETTLED_RATIO = 1.5;
/** Nodes under 1 % CPU count as 1 % in the hottest/median ratio: "all load on one node" stays finite, an idle cluster is flat. */
const CPU_FLOOR = 0.01;
const HALF_HOUR_S = 1800;

export interface SummaryInput {
  engine: EngineOutput;
  model: Model;
  /** Compute nodes simulated: the standard nodes over the model's node scaling factor. */
  nodes: number;
  durationS: number;
  /** Where the run sits in the workload's cycle (null cycle: a steady load). */
  plan: Pick<RunPlan, "offsetS" | "cycle">;
  /** The CPU an autoscaler would hold (for the cycle's node range). */
  cpuTarget: number;
  writeRowBytes: number;
  /** Bytes the run stored in all; with a retention, the rate they were written at is what counts. */
  storedBytes: number;
  retentionS: number | null;
  /** Null when not modelled (a replay of recorded keys). */
  largestRow: LargestRow | null;
}

export function summarize(input: SummaryInput): DesignSummary {
  const { engine, durationS } = input;
  const timeline = engine.timeline;
  const hottest = timeline.map((point) => point.hottestNodeCpu);
  const ratios = timeline.map(ratio);
  const over = (from: number, to: number) =>
    mean(timeline.filter((point) => point.t >= from && point.t < to).map((point) => point.hottestNodeCpu));
  const { warmUpS } = warmUp(input.model, durationS);
  // A cycle's run is placed with the warm-up before its first judged peak.
  const steadyState = steady(engine, input.plan.cycle !== null || durationS >= 2 * warmUpS);
  return {
    hottestNodeCpu: {
      first: hottest[0]!,
      last: hottest[hottest.length - 1]!,
      first30m: over(0, HALF_HOUR_S),
      last30m: over(durationS - HALF_HOUR_S, Number.POSITIVE_INFINITY),
      mean: mean(hottest),
      max: Math.max(...hottest),
    },
    medianNodeCpu: { mean: mean(timeline.map((point) => point.medianNodeCpu)) },
    averageNodeCpu: { mean: mean(timeline.map((point) => point.averageNodeCpu)) },
    maxOverMedian: { first: ratios[0]!, last: ratios[ratios.length - 1]!, mean: mean(ratios) },
    settledAfterS: settledAfter(timeline, ratios),
    warmUpS,
    steadyState,
    cycle: cycleSummary(input),
    guidance: guidance(steadyState, input),
    writes: { ...engine.writes, rowBytes: input.writeRowBytes },
    reads: engine.reads,
    tablets: engine.tablets,
  };
}

const ratio = (point: TimelinePoint) =>
  Math.max(point.hottestNodeCpu, CPU_FLOOR) / Math.max(point.medianNodeCpu, CPU_FLOOR);

/** The steady state's hottest node: the 95th percentile of intervals, so bursts count and one outlier does not. */
const HOTTEST_QUANTILE = 0.95;

/** The judged time's samples, weighted by their length (a burst's last sample may be short). */
function steady(engine: EngineOutput, warmedUp: boolean): SteadyState {
  const window: JudgedPoint[] =
    engine.judged.length > 0
      ? engine.judged
      : engine.timeline.slice(-1).map((point) => ({ ...point, durationS: 1 }));
  const seconds = window.reduce((sum, point) => sum + point.durationS, 0);
  const over = (value: (point: JudgedPoint) => number) =>
    window.reduce((sum, point) => sum + value(point) * point.durationS, 0) / seconds;
  const hottest = window.map((point) => point.hottestNodeCpu).sort((a, b) => a - b);
  const writes = over((point) => point.writesPerS);
  return {
    fromS: window[0]!.t,
    warmedUp,
    hottestNodeCpu: hottest[Math.min(hottest.length - 1, Math.floor(HOTTEST_QUANTILE * hottest.length))]!,
    averageNodeCpu: over((point) => point.averageNodeCpu),
    maxOverMedian: over(ratio),
    servedWritesPerS: over((point) => point.servedWritesPerS),
    shedWriteShare: writes > 0 ? 1 - over((point) => point.servedWritesPerS) / writes : 0,
    writeP99Ms: engine.steady.writeP99Ms,
    reads: engine.steady.reads,
  };
}

/**
 * From when every busy interval stayed flat to the end. Idle intervals (between bursts) show
 * nothing either way and are passed over; null when the last busy interval is not flat.
 */
function settledAfter(timeline: TimelinePoint[], ratios: number[]): number | null {
  const busy = (index: number) => timeline[index]!.averageNodeCpu >= CPU_FLOOR;
  let from = ratios.length;
  while (from > 0 && (!busy(from - 1) || ratios[from - 1]! <= SETTLED_RATIO)) from--;
  if (from === 0) return 0;
  while (from < ratios.length && !busy(from)) from++;
  return from < ratios.length ? timeline[from]!.t : null;
}

function guidance(state: SteadyState, input: SummaryInput): Guidance {
  const { nodes, model, retentionS, durationS } = input;
  const limits = model.storageLimits;
  const factor = model.nodeScalingFactor;
  const standardNodes = nodes * factor;
  const bytes =
    (retentionS === null ? input.storedBytes : (input.storedBytes / durationS) * retentionS) /
    limits.compression;
  // Bytes a standard node may hold at the binding limit (one tier, or the tighter of SSD and both tiers).
  const perNodeLimit =
    bytes > 0 ? bytes / storageNodesFractional(bytes, limits.planning) : limits.planning.plannedBytesPerNode;
  const averageCpu = limit(state.averageNodeCpu, AVERAGE_CPU_LIMIT);
  const hottestCpu = limit(state.hottestNodeCpu, HOTTEST_CPU_LIMIT);
  const perNode = limit(bytes / standardNodes, perNodeLimit);
  // CPU is counted in compute nodes; a count of them is `factor` standard nodes.
  const computeNodes = cpuNodesNeeded(state, nodes, {
    average: AVERAGE_CPU_LIMIT,
    hottest: HOTTEST_CPU_LIMIT,
    spreadRatio: SETTLED_RATIO,
  });
  const cpu = computeNodes === null ? null : computeNodes * factor;
  const storage = storageNodesNeeded(bytes, limits.planning);
  return {
    averageCpu,
    hottestCpu,
    storage: { bytes, retentionS, perNode, utilization: bytes / standardNodes / limits.limitBytesPerNode },
    largestRow: input.largestRow,
    nodesNeeded: { cpu, storage, total: cpu === null ? null : Math.max(cpu, storage) },
    meets: averageCpu.ok && hottestCpu.ok && perNode.ok && input.largestRow?.ok !== false,
  };
}

/**
 * The cycle from the run: average node CPU is demand, linear in the rows written (writes scale with
 * the arrival pattern, reads do not), so a line fitted to the samples gives it at the cycle's peak
 * and trough rates; the autoscaler runs the nodes that hold that demand at its CPU target.
 */
function cycleSummary(input: SummaryInput): CycleSummary | null {
  const { cycle, offsetS } = input.plan;
  if (cycle === null) return null;
  const { engine, nodes, cpuTarget } = input;
  const cpuAt = linearFit(
    engine.timeline.map((point) => point.writesPerS),
    engine.timeline.map((point) => point.averageNodeCpu),
  );
  const peak = cpuAt(cycle.peakRowsPerS);
  const trough = cpuAt(cycle.troughRowsPerS);
  // Compute nodes at the target, counted in standard nodes (2x node scaling adds them in twos).
  const factor = input.model.nodeScalingFactor;
  const nodesAt = (cpu: number) => factor * Math.max(1, Math.ceil((cpu * nodes) / cpuTarget - 1e-9));
  const minNodes = nodesAt(trough);
  const reactionS = input.model.tablets.rebalanceTime;
  return {
    periodS: cycle.periodS,
    offsetS,
    peakLastsS: cycle.peakLastsS,
    judgedS: engine.judged.reduce((sum, point) => sum + point.durationS, 0),
    averageNodeCpu: { peak, trough },
    hourlyPeakNodeCpu: cycle.hourlyPeakRowsPerS.map(cpuAt),
    autoscaler: {
      cpuTarget,
      minNodes,
      maxNodes: Math.max(minNodes, nodesAt(peak)),
      reactionS,
      followsPeak: cycle.peakLastsS > reactionS,
    },
  };
}

/** Least squares y = a + b·x; with no spread in x, the mean of y everywhere. */
function linearFit(xs: readonly number[], ys: readonly number[]): (x: number) => number {
  const meanX = mean(xs);
  const meanY = mean(ys);
  let covariance = 0;
  let variance = 0;
  xs.forEach((x, index) => {
    covariance += (x - meanX) * (ys[index]! - meanY);
    variance += (x - meanX) ** 2;
  });
  const slope = variance > 1e-12 * Math.max(1, meanX ** 2) ? covariance / variance : 0;
  return (x) => Math.max(0, meanY + slope * (x - meanX));
}

const limit = (value: number, max: number) => ({ value, limit: max, ok: value <= max });

/**
 * Calibration to the running cluster: a scenario's `observed` block says what the current key shows
 * on the cluster today (nodes, average and/or hottest CPU, the rates it served). The model's
 * uncertain constants are fitted, within their documented ranges, so that the current key
 * reproduces it; every design is then judged under the fitted model, and the range reported is the
 * one the constants that still agree with the observation span.
 *
 * Method (a few simulations, not a search over every constant): the uncertain constants move
 * together along one path, t ∈ [−1, 1] — t = 0 every constant at its default, t = 1 all at their
 * pessimistic ends, t = −1 all at their optimistic ends, linearly between. Along it every operation
 * costs more and the balancer is slower as t grows, so the current key's CPU grows with t; t is
 * found by regula falsi between the ends, and the range is the t whose CPU lies within
 * OBSERVATION_TOLERANCE of the observation (its ends found the same way). Other combinations
 * of constants may reproduce the observation too: the path is the method's assumption, and the
 * constants it moves are reported with how far they moved. Only constants that shape CPU move
 * (capacity, the row-cost share, splits, balancing, merges); latency constants do not (CPU says
 * nothing about them), and neither does a constant the scenario sets (the user's input).
 * Stored bytes per node, when observed, fit the compression directly: the bytes the observed write
 * rate keeps over the retention, per node, over the bytes observed.
 */
import { MODEL_CONSTANTS, type NumericConstantName } from "../cluster/model-constants.js";
import { impliedRetention } from "../scenario/retention.js";
import type { Observed, Scenario } from "../scenario/scenario.js";
import { type NumericField, numericSetting, withNumericSetting } from "../scenario/scenario-field.js";
import { type SimulationMode, simulateScenario } from "./simulate.js";

/**
 * How far a simulated CPU may sit from the observed one and still agree with it, ±: a CPU chart
 * read to the nearest 5 % (an assumption; the observation's own precision is not stated).
 */
export const OBSERVATION_TOLERANCE = 0.025;
/** Regula-falsi steps for the fit and for each end of the range, at most: each is one simulation. */
const FIT_STEPS = 5;

/** Constants whose value shapes CPU, per storage type (the other type's capacity does not apply). */
const CPU_CONSTANTS: Record<"ssd" | "hdd", readonly NumericConstantName[]> = {
  ssd: ["ssdWritesPerS", "ssdReadsPerS", "ssdScanBytesPerS"],
  hdd: ["hddWritesPerS", "hddReadsPerS", "hddScanBytesPerS"],
};
const SHARED_CPU_CONSTANTS: readonly NumericConstantName[] = [
  "fixedCostShare",
  "splitOpsPerS",
  "splitCpuShare",
  "splitSustainS",
  "splitBytes",
  "balancePeriodS",
  "rebalanceS",
  "imbalance",
  "minCpuGap",
  "mergeLoadShare",
  "mergeAgeS",
];

export type CalibratedMetric = "averageCpu" | "hottestCpu";

/** One constant as the fit left it. */
export interface MovedConstant {
  name: NumericConstantName;
  field: NumericField;
  from: number;
  to: number;
  /** Toward which end, and how far along the way there (0–1). */
  toward: "pessimistic" | "optimistic";
  share: number;
}

/** What the current key shows in a simulation of the observed cluster. */
export interface ObservedFigures {
  averageCpu: number;
  hottestCpu: number;
  maxOverMedian: number;
}

/** The observed bytes per node against what the workload keeps over its retention. */
export interface StorageFit {
  /** Logical bytes the observed write rate keeps per node over the retention. */
  keptBytesPerNode: number;
  /** Logical bytes per stored byte that reproduce the observation. */
  compression: number;
  /** Whether it lies in the compression's documented range (else the scenario's retention or rows disagree with the cluster). */
  withinRange: boolean;
}

export interface Calibration {
  observed: Observed;
  /** The compression fitted to the observed bytes per node (absent when none is observed, no retention is known, or the scenario sets it). */
  storage?: StorageFit;
  /** The figure fitted: the average when observed, else the hottest node; unreproduced: the observed figure no constants reproduce. */
  metric: CalibratedMetric;
  /** The current key's figures with every constant at its optimistic and at its pessimistic end. */
  atEnds: { optimistic: ObservedFigures; pessimistic: ObservedFigures };
  /** Simulations the fit ran. */
  runs: number;
  fit:
    | {
        status: "fitted";
        /** Where on the path the fit lies (−1 optimistic … 0 defaults … 1 pessimistic), and the range that agrees. */
        t: number;
        range: { low: number; high: number };
        /** The current key under the fitted model. */
        figures: ObservedFigures;
        moved: MovedConstant[];
        /** The scenario with the fitted constants set, and at the two ends of the range that agrees. */
        scenario: Scenario;
        rangeScenarios: { optimistic: Scenario; pessimistic: Scenario };
        /** The observed figure that was not fitted (when both were observed) and the model disagrees on it beyond the tolerance. */
        otherMetric?: { metric: CalibratedMetric; observed: number; simulated: number };
      }
    | {
        status: "unreproduced";
        /** The observation lies above the pessimistic end or below the optimistic end. */
        side: "above" | "below";
      };
}

export interface CalibrateOptions {
  durationS?: number;
  mode?: SimulationMode;
  /** The simulator; default simulateScenario (the studio passes a memo of it, src/lab/simulation-memo.ts). */
  simulate?: typeof simulateScenario;
}

/** The constants the path moves for this scenario, with their default and their two ends. */
function pathConstants(
  scenario: Scenario,
): { name: NumericConstantName; from: number; pessimistic: number; optimistic: number }[] {
  const names = [...CPU_CONSTANTS[scenario.cluster.storage], ...SHARED_CPU_CONSTANTS];
  const rowBytes = meanRowBytes(scenario);
  return names.flatMap((name) => {
    const constant = MODEL_CONSTANTS[name];
    if (constant.low === constant.high || numericSetting(scenario, constant.field) !== undefined) return [];
    // A row's fixed cost share costs more at its high end for rows under 1 KB and at its low end above.
    const worseIsLow = name === "fixedCostShare" ? rowBytes > 1024 : constant.worse === "low";
    return [
      {
        name,
        from: constant.value,
        pessimistic: worseIsLow ? constant.low : constant.high,
        optimistic: worseIsLow ? constant.high : constant.low,
      },
    ];
  });
}

function meanRowBytes(scenario: Scenario): number {
  const groups = scenario.workload.groups;
  const writes = groups.reduce((sum, group) => sum + group.writesPerS, 0);
  return groups.reduce(
    (sum, group) => sum + (group.rowBytes ?? scenario.workload.rowBytes) * (group.writesPerS / writes),
    0,
  );
}

const along = (t: number, constant: { from: number; pessimistic: number; optimistic: number }) =>
  t >= 0
    ? constant.from + t * (constant.pessimistic - constant.from)
    : constant.from + -t * (constant.optimistic - constant.from);

/** The scenario with every path constant at its value at `t`. */
export function scenarioAt(scenario: Scenario, t: number): Scenario {
  return pathConstants(scenario).reduce(
    (each, constant) => withNumericSetting(each, MODEL_CONSTANTS[constant.name].field, along(t, constant)),
    scenario,
  );
}

/** The current key (the first design) as the cluster runs it: a long-running table on the observed nodes at the observed rates. */
export function observedScenario(scenario: Scenario, observed: Observed): Scenario {
  const { workload } = scenario;
  const writes = workload.groups.reduce((sum, group) => sum + group.writesPerS, 0);
  const reads = workload.reads.reduce((sum, read) => sum + read.perS, 0);
  const writeScale = (observed.writesPerS ?? writes) / writes;
  const readScale = observed.readsPerS === undefined || reads === 0 ? 1 : observed.readsPerS / reads;
  const { nodes: _nodes, ...current } = scenario.designs[0]!;
  return {
    ...scenario,
    cluster: { ...scenario.cluster, nodes: observed.nodes },
    workload: {
      ...workload,
      groups: workload.groups.map((group) => ({ ...group, writesPerS: group.writesPerS * writeScale })),
      reads: workload.reads.map((read) => ({ ...read, perS: read.perS * readScale })),
    },
    designs: [{ ...current, table: "existing" }],
  };
}

export function calibrate(scenario: Scenario, options: CalibrateOptions = {}): Calibration {
  const observed = scenario.observed;
  if (!observed) throw new Error(`scenario "${scenario.name}" states no observed cluster to calibrate to`);
  const metric: CalibratedMetric = observed.averageCpu !== undefined ? "averageCpu" : "hottestCpu";
  const target = observed[metric]!;
  const current = observedScenario(scenario, observed);
  const cache = new Map<number, ObservedFigures>();
  const figuresAt = (t: number): ObservedFigures => {
    const known = cache.get(t);
    if (known) return known;
    const steady = (options.simulate ?? simulateScenario)(scenarioAt(current, t), {
      durationS: options.durationS ?? scenario.duration,
      mode: options.mode ?? "fast",
    }).designs[0]!.summary.steadyState;
    const figures = {
      averageCpu: steady.averageNodeCpu,
      hottestCpu: steady.hottestNodeCpu,
      maxOverMedian: steady.maxOverMedian,
    };
    cache.set(t, figures);
    return figures;
  };
  const gap = (t: number) => figuresAt(t)[metric] - target;
  const atEnds = { optimistic: figuresAt(-1), pessimistic: figuresAt(1) };
  const storage = storageFit(current, observed);
  const base = { observed, metric, atEnds, ...(storage ? { storage } : {}) };
  // Either observed figure beyond what the ends make of the workload: no constants in their ranges
  // reproduce the observation (CPU rises with t), so nothing is fitted to it — a hottest node far
  // above a spread workload's is a hot row or narrow range the scenario does not state.
  for (const figure of [metric, metric === "averageCpu" ? "hottestCpu" : "averageCpu"] as const) {
    const value = observed[figure];
    if (value === undefined) continue;
    const side =
      atEnds.pessimistic[figure] < value - OBSERVATION_TOLERANCE
        ? "above"
        : atEnds.optimistic[figure] > value + OBSERVATION_TOLERANCE
          ? "below"
          : undefined;
    if (side) return { ...base, metric: figure, runs: cache.size, fit: { status: "unreproduced", side } };
  }
  const t = regulaFalsi(gap, -1, 1);
  // The range's ends: where the CPU is a tolerance below and above the observation (or the path's ends).
  const low =
    gap(-1) >= -OBSERVATION_TOLERANCE ? -1 : regulaFalsi((u) => gap(u) + OBSERVATION_TOLERANCE, -1, t);
  const high = gap(1) <= OBSERVATION_TOLERANCE ? 1 : regulaFalsi((u) => gap(u) - OBSERVATION_TOLERANCE, t, 1);
  const figures = figuresAt(t);
  const fittedCompression = storage?.withinRange ? storage.compression : undefined;
  const withCompression = (each: Scenario): Scenario =>
    fittedCompression === undefined
      ? each
      : withNumericSetting(each, "workload.compression", fittedCompression);
  const other: CalibratedMetric = metric === "averageCpu" ? "hottestCpu" : "averageCpu";
  const otherObserved = observed[other];
  return {
    ...base,
    runs: cache.size,
    fit: {
      status: "fitted",
      t,
      range: { low, high },
      figures,
      moved: [...moved(scenario, t), ...(fittedCompression ? [compressionMoved(fittedCompression)] : [])],
      scenario: withCompression(scenarioAt(scenario, t)),
      rangeScenarios: {
        optimistic: withCompression(scenarioAt(scenario, low)),
        pessimistic: withCompression(scenarioAt(scenario, high)),
      },
      ...(otherObserved !== undefined && Math.abs(figures[other] - otherObserved) > OBSERVATION_TOLERANCE
        ? { otherMetric: { metric: other, observed: otherObserved, simulated: figures[other] } }
        : {}),
    },
  };
}

/** A root of the rising `gap` between `a` and `b` (where it changes sign), by regula falsi (Illinois). */
function regulaFalsi(gap: (t: number) => number, a: number, b: number): number {
  let [ga, gb] = [gap(a), gap(b)];
  if (Math.abs(ga) <= Math.abs(gb) && Math.abs(ga) <= OBSERVATION_TOLERANCE / 5) return a;
  if (Math.abs(gb) <= OBSERVATION_TOLERANCE / 5) return b;
  let best = Math.abs(ga) < Math.abs(gb) ? a : b;
  let side = 0;
  for (let step = 0; step < FIT_STEPS; step++) {
    const t = (a * gb - b * ga) / (gb - ga);
    const gt = gap(t);
    if (Math.abs(gt) < Math.abs(gap(best))) best = t;
    if (Math.abs(gt) <= OBSERVATION_TOLERANCE / 5) return t;
    if (gt * gb > 0) {
      [b, gb] = [t, gt];
      if (side === -1) ga /= 2;
      side = -1;
    } else {
      [a, ga] = [t, gt];
      if (side === 1) gb /= 2;
      side = 1;
    }
  }
  return best;
}

function moved(scenario: Scenario, t: number): MovedConstant[] {
  return pathConstants(scenario)
    .filter((constant) => along(t, constant) !== constant.from)
    .map((constant) => ({
      name: constant.name,
      field: MODEL_CONSTANTS[constant.name].field,
      from: constant.from,
      to: along(t, constant),
      toward: t >= 0 ? "pessimistic" : "optimistic",
      share: Math.abs(t),
    }));
}

/** The compression that makes the observed write rate over the retention fill the observed bytes per node. */
function storageFit(current: Scenario, observed: Observed): StorageFit | undefined {
  const retention = impliedRetention(current);
  if (observed.storageBytesPerNode === undefined || !retention || current.workload.compression !== undefined)
    return undefined;
  const { workload } = current;
  const bytesPerS = workload.groups.reduce(
    (sum, group) => sum + group.writesPerS * (group.rowBytes ?? workload.rowBytes),
    0,
  );
  const keptBytesPerNode = (bytesPerS * retention.seconds) / observed.nodes;
  const compression = keptBytesPerNode / observed.storageBytesPerNode;
  const { low, high } = MODEL_CONSTANTS.compression;
  return { keptBytesPerNode, compression, withinRange: compression >= low && compression <= high };
}

function compressionMoved(compression: number): MovedConstant {
  const constant = MODEL_CONSTANTS.compression;
  const toward = compression >= constant.value ? "optimistic" : "pessimistic";
  const end = toward === "optimistic" ? constant.high : constant.low;
  return {
    name: "compression",
    field: constant.field,
    from: constant.value,
    to: compression,
    toward,
    share:
      end === constant.value ? 0 : Math.abs(compression - constant.value) / Math.abs(end - constant.value),
  };
}

/**
 * Replays a scenario's workload under each of its key designs and reports, per design, what the
 * cluster would do: node CPU over time, latency, read fan-out, tablets, cost, Google's guidance.
 */
import { compileSchema, reversedLeadSplits } from "../../keys/index.js";
import type { KeySchema } from "../../keys/types.js";
import { clientCores } from "../client/client-cores.js";
import { dataBoostRead } from "../cluster/data-boost.js";
import { type Model, resolveModel } from "../cluster/model.js";
import type { ModelEnd } from "../cluster/model-constants.js";
import { TabletMap } from "../cluster/tablets.js";
import { runEngine } from "../engine/engine.js";
import type { ReadDemand } from "../engine/measurements.js";
import { ExactLoad } from "../load/exact-load.js";
import { FastLoad } from "../load/fast-load.js";
import type { LoadGenerator } from "../load/load.js";
import { findSplitPoints } from "../load/split-point.js";
import { planRun, type RunPlan } from "../scenario/cycle.js";
import { DurationError, formatDuration } from "../scenario/duration.js";
import { impliedRetention } from "../scenario/retention.js";
import {
  BIGTABLE_LIST_PRICES,
  findScenarioDesign,
  SALT_BUCKET_SPLITS,
  type Scenario,
  type ScenarioDesign,
  type TableSplits,
} from "../scenario/scenario.js";
import { tableFor } from "../scenario/table-that-exists.js";
import { CompiledRead } from "../workload/reads.js";
import { largestRow } from "../workload/row-size.js";
import { CompiledGroup } from "../workload/workload.js";
import { DesignError } from "./design-error.js";
import type { DesignResult, SimulationResult } from "./results.js";
import { AUTOSCALER_CPU_TARGET, summarize, warmUp } from "./summary.js";

export type SimulationMode = "fast" | "exact";

export interface SimulationProgress {
  design: string;
  /** 0-based index of the design among those being run, and how many run. */
  designIndex: number;
  designCount: number;
  doneS: number;
  totalS: number;
}

export interface SimulateOptions {
  /** Run only this design (by name). */
  design?: string;
  /** Overrides the scenario's duration, seconds. */
  durationS?: number;
  /** `fast` (default): rate-based over sampled key-space footprints; `exact`: every operation with its real key. */
  mode?: SimulationMode;
  /** Which end of the model's constant ranges to use (default: each constant's default). */
  modelEnd?: ModelEnd;
  onProgress?: (progress: SimulationProgress) => void;
}

export function simulateScenario(scenario: Scenario, options: SimulateOptions = {}): SimulationResult {
  const designs = selectDesigns(scenario, options.design);
  const durationS = options.durationS ?? scenario.duration;
  if (!(durationS > 0)) throw new Error(`duration: ${durationS} is not a positive number of seconds`);
  if (durationS < scenario.step) {
    throw new DurationError(
      "duration",
      durationS,
      `at least one step (${formatDuration(scenario.step)})`,
      `duration: ${formatDuration(durationS)} is shorter than one step (${formatDuration(scenario.step)}); simulate at least one step`,
    );
  }
  return {
    scenario: scenario.name,
    ...(scenario.description === undefined ? {} : { description: scenario.description }),
    durationS,
    designs: designs.map((design, designIndex) =>
      simulateDesign(
        scenario,
        design,
        durationS,
        options.mode ?? "fast",
        options.modelEnd ?? "default",
        (doneS, totalS) =>
          options.onProgress?.({
            design: design.name,
            designIndex,
            designCount: designs.length,
            doneS,
            totalS,
          }),
      ),
    ),
  };
}

function selectDesigns(scenario: Scenario, name: string | undefined): ScenarioDesign[] {
  return name === undefined ? scenario.designs : [findScenarioDesign(scenario, name)];
}

function simulateDesign(
  scenario: Scenario,
  design: ScenarioDesign,
  durationS: number,
  mode: SimulationMode,
  modelEnd: ModelEnd,
  onStep: (doneS: number, totalS: number) => void,
): DesignResult {
  const nodes = design.nodes ?? scenario.cluster.nodes;
  const model = resolveModel(scenario, design, modelEnd);
  // Under 2x node scaling the cluster runs half as many compute nodes, each of two standard nodes.
  const computeNodes = nodes / model.nodeScalingFactor;
  if (!Number.isInteger(computeNodes))
    throw new Error(
      `design "${design.name}": ${nodes} nodes under nodeScalingFactor ${model.nodeScalingFactor}; node counts must be even`,
    );
  const plan = planDesignRun(scenario, design, durationS, model);
  const compiled = compileDesign(scenario, design, plan.offsetS);
  const { schema, groups } = compiled;
  // Scans on Data Boost run on serverless compute: the cluster never sees them.
  const reads = compiled.reads.filter((read) => !read.dataBoost);
  const boosted = compiled.reads.filter((read) => read.dataBoost);
  if (mode === "exact") assertExactBudget(design.name, groups, reads, plan.durationS);
  const generator: LoadGenerator =
    mode === "fast" ? new FastLoad(groups, reads, model.cost) : new ExactLoad(groups, reads, model.cost);
  const table = tableFor(design, scenario.designs[0]!);
  const tablets =
    table === "existing"
      ? existingTablets(generator, computeNodes)
      : initialTablets(schema, mode === "fast" ? generator : new FastLoad(groups, reads, model.cost), {
          splits: model.tablets.splits,
          nodes: computeNodes,
          channels: generator.channels,
        });
  const engine = runEngine({
    tablets,
    generator,
    nodes: computeNodes,
    durationS: plan.durationS,
    stepS: scenario.step,
    sampleS: scenario.sample,
    tabletSettings: model.tablets,
    latency: model.latency,
    readPatterns: reads.map(readPattern),
    judged: plan.judged,
    onStep: (doneS) => onStep(doneS, plan.durationS),
  });
  // A scan over a window needs that window kept: with no retention set, the longest read window
  // sizes storage and the largest row, as in lab and advise (one rule, retention.ts).
  const retentionS = impliedRetention(scenario)?.seconds ?? null;
  const summary = summarize({
    engine,
    model,
    nodes: computeNodes,
    durationS: plan.durationS,
    plan,
    cpuTarget: scenario.cluster.autoscaling?.cpuTarget ?? AUTOSCALER_CPU_TARGET,
    writeRowBytes: groups[0]!.rowBytes,
    storedBytes: engine.storedBytes,
    retentionS,
    largestRow: largestRow(groups, retentionS ?? durationS),
  });
  if (boosted.length > 0)
    summary.dataBoostReads = boosted.map((read) =>
      dataBoostRead({ ...readPattern(read), rowBytes: read.group.rowBytes }, model.cost),
    );
  return {
    design: design.name,
    ...(design.description === undefined ? {} : { description: design.description }),
    schema: { name: schema.spec.name, fingerprint: schema.fingerprint, bucketCount: schema.bucketCount },
    nodes,
    nodeScalingFactor: model.nodeScalingFactor,
    table,
    storage: model.storage,
    costPerHour: nodes * (scenario.cluster.pricePerNodeHour ?? BIGTABLE_LIST_PRICES.nodeHour),
    mode,
    modelEnd,
    durationS: plan.durationS,
    stepS: scenario.step,
    summary,
    clientCores: clientCores(summary.reads, modelEnd, scenario.client),
    timeline: engine.timeline,
    loadSteps: engine.loadSteps,
  };
}

/**
 * Where the design's run sits in the workload's cycle: the scenario's duration from its start for a
 * steady load; a cycle's peak, with the model's warm-up before it, for one that varies.
 */
function planDesignRun(scenario: Scenario, design: ScenarioDesign, durationS: number, model: Model): RunPlan {
  const groups = compileDesign(scenario, design, 0).groups.map((group, index) => ({
    rowsPerS: group.opsPerS,
    arrival: scenario.workload.groups[index]!.arrival,
  }));
  return planRun(groups, Date.parse(scenario.start), durationS, warmUp(model, durationS).warmUpS);
}

/**
 * The design's key schema, and the scenario's write groups and reads compiled against it (their
 * clock `offsetS` after the scenario's start); an error names the design.
 */
function compileDesign(
  scenario: Scenario,
  design: ScenarioDesign,
  offsetS: number,
): { schema: KeySchema; groups: CompiledGroup[]; reads: CompiledRead[] } {
  let schema: KeySchema;
  try {
    schema = compileSchema(design.schema);
  } catch (error) {
    throw new DesignError(design.name, error as Error);
  }
  const startMs = Date.parse(scenario.start) + offsetS * 1000;
  const groups = scenario.workload.groups.map(
    (group) => new CompiledGroup(schema, group, design, scenario.workload.rowBytes, startMs),
  );
  const reads = scenario.workload.reads.map((read) => {
    try {
      return new CompiledRead(
        read,
        groups[scenario.workload.groups.findIndex((g) => g.name === read.group)]!,
      );
    } catch (error) {
      throw new DesignError(design.name, error as Error);
    }
  });
  return { schema, groups, reads };
}

/** A read as the engine reports it: its rate, fan-out (ranges per read) and rows per read. */
function readPattern(read: CompiledRead): ReadDemand {
  const planned = read.plan(0, 0, 0);
  return {
    name: read.name,
    kind: read.kind,
    perS: read.perS,
    fanout: planned.starts.length,
    rowsReadPerRead: planned.rowsPerRange * planned.starts.length,
    rowsReturnedPerRead: planned.rowsReturned,
  };
}

/** Operations the exact engine may generate per design (about a minute of wall time). */
const MAX_EXACT_OPERATIONS = 20_000_000;

function assertExactBudget(
  design: string,
  groups: CompiledGroup[],
  reads: CompiledRead[],
  durationS: number,
): void {
  const perS =
    groups.reduce((sum, group) => sum + group.opsPerS, 0) +
    reads.reduce((sum, read) => sum + read.perS * read.plan(0, 0, 0).starts.length, 0);
  const operations = Math.round(perS * durationS);
  if (operations > MAX_EXACT_OPERATIONS) {
    throw new Error(
      `design "${design}": the exact engine would generate ${operations.toLocaleString("en-US")} operations (limit ${MAX_EXACT_OPERATIONS.toLocaleString("en-US")}); use the fast engine or a shorter duration`,
    );
  }
}

/** Tablets per node of a table already split by its load. */
const EXISTING_TABLETS_PER_NODE = 4;

/**
 * A long-running table: split at quantiles of its load into a few tablets per node, dealt
 * round-robin, so each node carries about the same load from the first step. Load on one key (a
 * time-first key's tail) stays one tablet, as it would in a real table. Its tablets hold its data
 * (a long-running table is split by size too), so quiet hours between bursts do not merge them away.
 */
function existingTablets(generator: LoadGenerator, nodes: number): TabletMap {
  const boundaries = loadQuantiles(generator, EXISTING_TABLETS_PER_NODE * nodes);
  return new TabletMap(boundaries, (index) => index % nodes, generator.channels, true);
}

/**
 * A new table as it was created: pre-split at its salt's bucket boundaries (as `keyspread table
 * create` and Phoenix SALT_BUCKETS do) or at `splits` keys cutting its load into equal parts, the
 * tablets dealt round-robin to the nodes whether or not the key is salted; with no split points,
 * one tablet on one node. `planner` places the cuts (the fast engine's view of where load lands).
 */
function initialTablets(
  schema: KeySchema,
  planner: LoadGenerator,
  { splits, nodes, channels }: { splits: TableSplits; nodes: number; channels: number },
): TabletMap {
  const boundaries =
    splits !== SALT_BUCKET_SPLITS
      ? loadQuantiles(planner, splits + 1)
      : schema.bucketCount > 1
        ? // Every bucket's start after the first, as `keyspread table create` splits (src/table/splits.ts):
          // the first tablet runs from the table's start, so no empty tablet precedes bucket 0.
          schema
            .plan({})
            .ranges.map((range) => range.start)
            .slice(1)
        : // A key leading with a reversed id: cut at its leading digits, as `table create` does.
          reversedLeadSplits(schema);
  return new TabletMap(boundaries, (index) => index % nodes, channels, true);
}

/** Keys cutting the key space into `count` parts of equal load (fewer where load sits on one key). */
export function loadQuantiles(generator: LoadGenerator, count: number): Buffer[] {
  if (count <= 1) return [];
  const ones = new Float64Array(generator.channels).fill(1);
  const layers = generator.layers(ones, ones, Buffer.alloc(0), null);
  const fractions = Array.from({ length: count - 1 }, (_, k) => (k + 1) / count);
  const boundaries: Buffer[] = [];
  for (const point of findSplitPoints(Buffer.alloc(0), null, layers.load, layers, fractions)) {
    const previous = boundaries[boundaries.length - 1];
    if (point && (!previous || Buffer.compare(previous, point.key) < 0)) boundaries.push(point.key);
  }
  return boundaries;
}

/**
 * The advisor: enumerate candidate key designs for a scenario's workload, replay the workload
 * under each with the simulator, score them against the targets and recommend the simplest that
 * meets them with headroom (twice the write rate). When none does on the planned nodes, it finds
 * the fewest nodes on which one does. Pure (the simulator is pure); the CLI reads files and writes
 * the report.
 */
import type { ModelEnd } from "../sim/model-constants.js";
import type { DesignResult } from "../sim/results.js";
import type { Design, Scenario } from "../sim/scenario.js";
import { type SimulationMode, type SimulationProgress, simulateScenario } from "../sim/simulate.js";
import { type BeyondTheKey, beyondTheKey } from "./beyond-the-key.js";
import { type Candidate, enumerateCandidates } from "./candidates.js";
import { type DecisionRow, decisionTable } from "./decision-table.js";
import { designName } from "./design-name.js";
import { type KeyRoles, keyRoles } from "./field-roles.js";
import { breakingRate, HEADROOM_FACTOR } from "./headroom.js";
import { type KeyFootprint, keyFootprint } from "./key-size.js";
import { type ReadService, readServices } from "./read-service.js";
import { MODELLED_AS_IS, type RealKey } from "./real-key.js";
import {
  capacityBound,
  type Evaluated,
  lossReason,
  meets,
  meetsWithHeadroom,
  simplicityOrder,
} from "./recommend.js";
import { scenarioCandidates } from "./scenario-candidates.js";
import { DEFAULT_TARGETS, type Failure, failedTargets, scoreDesign, type Targets } from "./score.js";

export interface AdviseOptions {
  /** The scenario design that is the current key; default the first. */
  baseline?: string;
  /** Nodes to plan for; default the baseline's or the scenario's node count. */
  nodes?: number;
  /** Simulated time per candidate; default the scenario's duration. */
  durationS?: number;
  mode?: SimulationMode;
  targets?: Partial<Targets>;
  /** Whether reads allow batching points per entity into one row; default true. */
  batching?: boolean;
  /** Salt bucket counts to try; default 2, 3 and 4 × nodes and the powers of two up to 256, at least the nodes. */
  buckets?: readonly number[];
  /**
   * Simulate every candidate (default), for a complete table; false stops at the simplest that
   * meets the targets with headroom (the same recommendation, fewer simulations: the rest are
   * listed as not simulated).
   */
  exhaustive?: boolean;
  /** The real key where the modelled one differs (from a key sample: `realKeyOf`); the recommended schema reads it. */
  realKey?: RealKey;
  /**
   * `generated` (default): the advisor's own candidates for the baseline key. `scenario`: the
   * scenario's designs, judged by the same rules (the lab), each on its own node count.
   */
  candidates?: "generated" | "scenario";
  onProgress?: (progress: AdviceProgress) => void;
}

export interface AdviceProgress {
  candidate: string;
  /** 0-based index of the candidate being simulated, and how many there are (more may follow). */
  index: number;
  count: number;
  doneS: number;
  totalS: number;
}

export interface Advice {
  scenario: string;
  description?: string;
  source?: string;
  nodes: number;
  storage: "ssd" | "hdd";
  durationS: number;
  mode: SimulationMode;
  targets: Targets;
  /** The stated write rate (points per second, all groups). */
  writesPerS: number;
  /** What each field of the baseline key does in the workload. */
  roles: KeyRoles;
  /** The real key where the modelled one differs; schemas in the report and JSON read it. */
  realKey: RealKey;
  /** Every candidate on the planned nodes in enumeration order (as-is first), then those tried on more nodes. */
  candidates: Evaluated[];
  recommended: Evaluated | undefined;
  /** The recommendation needs more nodes than planned for (nothing met the targets with headroom on them). */
  needsMoreNodes: boolean;
  losers: { name: string; reason: string }[];
  /** Candidates left out once a simpler one met the targets with headroom (`exhaustive: false`). */
  notSimulated: string[];
  decision: DecisionRow[];
  beyondTheKey: BeyondTheKey[];
}

/** Node counts tried after the first estimate when nothing meets the targets there. */
const MORE_NODES_ATTEMPTS = 3;
/** Growth of the node count between attempts. */
const MORE_NODES_GROWTH = 1.25;
/** Bucket counts tried per kind of design on more nodes (the fewest that cover them). */
const BUCKET_CHOICES_ON_MORE_NODES = 2;
/** Node counts beyond this are not simulated (a workload that size needs a scenario of its own and a capacity plan). */
const MAX_NODES = 1000;

function selectBaseline(scenario: Scenario, name: string | undefined): Design {
  if (name === undefined) return scenario.designs[0]!;
  const design = scenario.designs.find((each) => each.name === name);
  if (!design) {
    throw new Error(
      `baseline "${name}" is not a design of scenario "${scenario.name}"; designs: ${scenario.designs.map((d) => d.name).join(", ")}`,
    );
  }
  return design;
}

const withWrites = (scenario: Scenario, factor: number): Scenario => ({
  ...scenario,
  workload: {
    ...scenario.workload,
    groups: scenario.workload.groups.map((group) => ({ ...group, writesPerS: group.writesPerS * factor })),
  },
});

const bucketsOf = (candidate: Candidate) =>
  candidate.changes.find((change) => change.kind === "salt")?.buckets ??
  candidate.design.schema.salt?.buckets ??
  1;

/** The changes of a candidate without bucket counts: salts over the same fields are one kind of design. */
const kindOf = (candidate: Candidate) =>
  designName(
    candidate.changes.map((change) => (change.kind === "salt" ? { ...change, buckets: 0 } : change)),
  );

export function adviseScenario(scenario: Scenario, options: AdviseOptions = {}): Advice {
  const {
    nodes: baselineNodes,
    storage: baselineStorage,
    ...baseline
  } = selectBaseline(scenario, options.baseline);
  const nodes = options.nodes ?? baselineNodes ?? scenario.cluster.nodes;
  if (!Number.isInteger(nodes) || nodes < 1) throw new Error(`nodes: ${nodes} is not a whole number ≥ 1`);
  const storage = baselineStorage ?? scenario.cluster.storage;
  const targets = { ...DEFAULT_TARGETS, ...options.targets };
  const durationS = options.durationS ?? scenario.duration;
  const mode = options.mode ?? "fast";
  const planned: Scenario = { ...scenario, cluster: { ...scenario.cluster, nodes, storage } };
  const writesPerS = planned.workload.groups.reduce((sum, group) => sum + group.writesPerS, 0);
  const fromScenario = options.candidates === "scenario";
  const ownDesigns = scenarioCandidates(scenario.designs, selectBaseline(scenario, options.baseline));
  const candidatesFor = (onNodes: number, buckets: readonly number[] | undefined): Candidate[] =>
    fromScenario
      ? onNodes === nodes
        ? ownDesigns
        : // On more nodes, each design without a node count of its own.
          ownDesigns.map((candidate) => {
            const { nodes: _own, ...design } = candidate.design;
            return { ...candidate, design };
          })
      : enumerateCandidates({ ...planned, cluster: { ...planned.cluster, nodes: onNodes } }, baseline, {
          nodes: onNodes,
          ...(options.batching === undefined ? {} : { batching: options.batching }),
          ...(buckets === undefined ? {} : { buckets }),
          ...(options.realKey === undefined ? {} : { realKey: options.realKey }),
        });
  /** A scenario's design runs on its own node count, where it has one. */
  const nodesOf = (candidate: Candidate, onNodes: number) => candidate.design.nodes ?? onNodes;
  const baselineFootprint = keyFootprint(planned, baseline);
  let simulated = 0;
  let expected = 0;

  const evaluate = (candidate: Candidate, onNodes: number): Evaluated => {
    const design = candidate.design;
    let reads: Evaluated["reads"] = [];
    try {
      reads = readServices(planned, design, baseline);
      const footprint: KeyFootprint = keyFootprint(planned, design);
      const result = simulateScenario(candidateScenario(planned, design, reads, onNodes), {
        durationS,
        mode,
        onProgress: progressOf(design.name),
      }).designs[0]!;
      const scores = scoreDesign(result, footprint, baselineFootprint, targets);
      return {
        candidate,
        nodes: onNodes,
        result,
        scores,
        reads,
        failures: [...keyFailures(candidate, reads, onNodes), ...failedTargets(scores, targets)],
      };
    } catch (error) {
      return { candidate, nodes: onNodes, failures: [], reads, error: (error as Error).message };
    }
  };

  const progressOf = (name: string) => {
    const index = simulated++;
    return (progress: { doneS: number; totalS: number }) =>
      options.onProgress?.({
        candidate: name,
        index,
        count: Math.max(expected, simulated),
        doneS: progress.doneS,
        totalS: progress.totalS,
      });
  };

  /** Runs a design that meets the targets at twice the write rate (without the reads it cannot place). */
  const checkHeadroom = (evaluated: Evaluated): void => {
    if (!meets(evaluated) || evaluated.headroom) return;
    const scaled = withWrites(planned, HEADROOM_FACTOR);
    const design = evaluated.candidate.design;
    const result = simulateScenario(candidateScenario(scaled, design, evaluated.reads, evaluated.nodes), {
      durationS,
      mode,
      onProgress: progressOf(`${design.name} at ${HEADROOM_FACTOR}×`),
    }).designs[0]!;
    const scores = scoreDesign(result, keyFootprint(scaled, design), baselineFootprint, targets);
    const failures: Failure[] = failedTargets(scores, targets);
    evaluated.headroom = {
      writesPerS: HEADROOM_FACTOR * writesPerS,
      scores,
      failures,
      breaksAt: breakingRate(writesPerS, evaluated.scores!, scores, targets),
    };
  };

  /** The simplest design meeting the targets with headroom, checking headroom in simplicity order. */
  const simplestWithHeadroom = (evaluated: readonly Evaluated[]): Evaluated | undefined => {
    for (const each of evaluated.filter(meets).sort(simplicityOrder)) {
      checkHeadroom(each);
      if (meetsWithHeadroom(each)) return each;
    }
    return undefined;
  };

  const first = candidatesFor(nodes, options.buckets);
  expected = first.length;
  const evaluated: Evaluated[] = [];
  let recommended: Evaluated | undefined;
  // Simplest first, a tier (complexity and bucket count) at a time, so a lazy walk stops where the simplicity order would.
  const tiers = new Map<string, Candidate[]>();
  for (const candidate of [...first].sort(
    (a, b) => a.complexity - b.complexity || bucketsOf(a) - bucketsOf(b),
  )) {
    const tier = `${candidate.complexity}/${bucketsOf(candidate)}`;
    tiers.set(tier, [...(tiers.get(tier) ?? []), candidate]);
  }
  const skipped: Candidate[] = [];
  for (const tier of tiers.values()) {
    if (recommended && options.exhaustive === false) {
      skipped.push(...tier);
      continue;
    }
    evaluated.push(...tier.map((candidate) => evaluate(candidate, nodesOf(candidate, nodes))));
    recommended ??= simplestWithHeadroom(evaluated);
  }
  evaluated.sort((a, b) => first.indexOf(a.candidate) - first.indexOf(b.candidate));
  // The current key's headroom is reported even when it is not the recommendation.
  if (meets(evaluated[0]!)) checkHeadroom(evaluated[0]!);
  let needsMoreNodes = false;

  if (!recommended) {
    // More nodes help designs whose load is spread; try their kinds on the fewest nodes that could carry twice the writes.
    const spread = evaluated.filter(
      (each) =>
        capacityBound(each) && (each.headroom === undefined || each.headroom.scores.nodesNeeded !== null),
    );
    const kinds = new Set(spread.map((each) => kindOf(each.candidate)));
    const estimate = Math.min(
      ...spread.map(
        (each) => each.headroom?.scores.nodesNeeded ?? HEADROOM_FACTOR * each.scores!.nodesNeeded!,
      ),
    );
    let onNodes = Math.max(nodes + 1, estimate);
    for (
      let attempt = 0;
      kinds.size > 0 && attempt <= MORE_NODES_ATTEMPTS && onNodes <= MAX_NODES;
      attempt++
    ) {
      const tried: Evaluated[] = [];
      // Per kind, its fewest buckets for these nodes: more buckets add fan-out, not capacity.
      const perKind = new Map<string, number>();
      // The bucket counts asked for that cover these nodes, else the usual choices for them.
      const covering = options.buckets?.filter((buckets) => buckets >= onNodes);
      const sorted = candidatesFor(onNodes, covering?.length ? covering : undefined)
        .filter((candidate) => {
          const kind = kindOf(candidate);
          perKind.set(kind, (perKind.get(kind) ?? 0) + 1);
          return kinds.has(kind) && perKind.get(kind)! <= BUCKET_CHOICES_ON_MORE_NODES;
        })
        .sort((a, b) => a.complexity - b.complexity);
      for (const candidate of sorted) {
        expected = simulated + 1;
        const each = evaluate(candidate, onNodes);
        tried.push(each);
        evaluated.push(each);
        if (!meets(each)) continue;
        checkHeadroom(each);
        if (meetsWithHeadroom(each)) {
          recommended = each;
          break;
        }
      }
      if (recommended) break;
      const needed = tried
        .filter((each) => capacityBound(each) && each.headroom?.scores.nodesNeeded !== null)
        .map((each) => each.headroom?.scores.nodesNeeded ?? HEADROOM_FACTOR * each.scores!.nodesNeeded!);
      // Nothing tried here could carry the load on more nodes: stop rather than grow without a lead.
      if (needed.length === 0) break;
      onNodes = Math.max(Math.ceil(onNodes * MORE_NODES_GROWTH), Math.min(...needed));
    }
    needsMoreNodes = recommended !== undefined;
  }
  const asIs = evaluated[0]!;
  return {
    scenario: scenario.name,
    ...(scenario.description === undefined ? {} : { description: scenario.description }),
    ...(scenario.source === undefined ? {} : { source: scenario.source }),
    nodes,
    storage,
    durationS,
    mode,
    targets,
    writesPerS,
    roles: keyRoles(planned, baseline.schema),
    realKey: options.realKey ?? MODELLED_AS_IS,
    candidates: evaluated,
    recommended,
    needsMoreNodes,
    losers: evaluated
      .filter((each) => each !== recommended)
      .map((each) => ({ name: labelOf(each, nodes), reason: lossReason(each, recommended) })),
    notSimulated: skipped.map((candidate) => candidate.name),
    decision: decisionTable(planned, asIs, evaluated),
    beyondTheKey: beyondTheKey(planned, asIs, recommended, targets),
  };
}

/**
 * The planned scenario as one candidate is simulated: on its nodes, with only the declared reads
 * the simulator places for it (the others are scored from their planned fan-out).
 */
function candidateScenario(
  planned: Scenario,
  design: Design,
  reads: readonly ReadService[],
  nodes: number,
): Scenario {
  const simulated = new Set(reads.filter((read) => read.status === "simulated").map((read) => read.name));
  return {
    ...planned,
    cluster: { ...planned.cluster, nodes },
    workload: {
      ...planned.workload,
      reads: planned.workload.reads.filter((read) => simulated.has(read.name)),
    },
    designs: [design],
  };
}

/**
 * Re-runs a simulated candidate of `advice` with the model's constants at `modelEnd`, as the
 * advisor ran it (for the lab's ranges over the model's uncertainty).
 */
export function simulateCandidateAt(
  scenario: Scenario,
  advice: Advice,
  evaluated: Evaluated,
  modelEnd: ModelEnd,
  onProgress?: (progress: SimulationProgress) => void,
): DesignResult {
  const planned = { ...scenario, cluster: { ...scenario.cluster, storage: advice.storage } };
  return simulateScenario(
    candidateScenario(planned, evaluated.candidate.design, evaluated.reads, evaluated.nodes),
    {
      durationS: advice.durationS,
      mode: advice.mode,
      modelEnd,
      ...(onProgress ? { onProgress } : {}),
    },
  ).designs[0]!;
}

/** A candidate's name, with its node count when it differs from the planned one. */
export function labelOf(evaluated: Evaluated, plannedNodes: number): string {
  // A scenario's design with a node count of its own is named for it already (`as-is-on-24-nodes`).
  return evaluated.nodes === plannedNodes || evaluated.candidate.design.nodes !== undefined
    ? evaluated.candidate.name
    : `${evaluated.candidate.name} on ${evaluated.nodes} nodes`;
}

/** Failures of the key itself, whatever the load: reads it cannot serve, too few salt buckets. */
function keyFailures(candidate: Candidate, reads: Evaluated["reads"], nodes: number): Failure[] {
  const failures: Failure[] = reads
    .filter((read) => read.status === "cannot-serve")
    .map((read) => ({ target: "read", text: `${read.name}: ${read.reason}` }));
  for (const change of candidate.changes) {
    if (change.kind === "salt" && change.buckets < nodes)
      failures.push({
        target: "buckets",
        text: `${change.buckets} buckets on ${nodes} nodes: fewer buckets than nodes leave nodes without writes (seed 000: the buckets should match or exceed the nodes)`,
      });
  }
  return failures;
}

/**
 * The advisor: enumerate candidate key designs for a scenario's workload, replay the workload
 * under each with the simulator, score them against the targets and recommend the simplest that
 * meets them with headroom (twice the write rate). When none does on the planned nodes, it finds
 * the fewest nodes on which one does. Pure (the simulator is pure); the CLI reads files and writes
 * the report.
 */
import { nodeScalingFactorOf } from "../../sim/cluster/model.js";
import type { ModelEnd } from "../../sim/cluster/model-constants.js";
import { roundUpToStep } from "../../sim/cluster/storage-target.js";
import type { DesignResult } from "../../sim/results/results.js";
import {
  type SimulationMode,
  type SimulationProgress,
  simulateScenario,
} from "../../sim/results/simulate.js";
import { SimulationCancelled } from "../../sim/results/simulation-cancelled.js";
import type { Retention } from "../../sim/scenario/retention.js";
import type { Scenario, ScenarioDesign } from "../../sim/scenario/scenario.js";
import { AdviseOptionError } from "../infer/advise-errors.js";
import { type KeyRoles, keyRoles } from "../infer/field-roles.js";
import { MODELLED_AS_IS, type RealKey } from "../infer/real-key.js";
import { autoscaledRange } from "../size/autoscaled-range.js";
import { type MonthlyCost, monthlyCost } from "../size/cost.js";
import { type KeyFootprint, keyFootprint } from "../size/key-size.js";
import { type PriceUsed, pricesUsed } from "../size/prices.js";
import { designSizing, type StoragePlan, storagePlan } from "../size/sizing.js";
import { type AnalyticalChoices, analyticalChoices } from "./analytical-choices.js";
import { type BeyondTheKey, beyondTheKey } from "./beyond-the-key.js";
import { type CandidateDesign, enumerateCandidates, saltBucketChoices } from "./candidates.js";
import { type ClusterOptions, clusterOptions } from "./cluster-options.js";
import { type DecisionRow, decisionTable } from "./decision-table.js";
import { designName } from "./design-name.js";
import { breakingRate, DEFAULT_GROWTH, type HeadroomCheck } from "./headroom.js";
import { type LossReason, lossReason } from "./loss-reason.js";
import { type MultiClusterAnswer, multiClusterAnswer } from "./multi-cluster.js";
import { type ReadService, readServices } from "./read-service.js";
import {
  capacityBound,
  cheapestOf,
  type EvaluatedCandidate,
  type JudgedCandidate,
  meetsTargets,
  meetsTargetsWithHeadroom,
  needsNodesAtGrowth,
  simplicityOrder,
} from "./recommend.js";
import { scenarioCandidates } from "./scenario-candidates.js";
import {
  type AdviceTargets,
  DEFAULT_ADVICE_TARGETS,
  failedTargets,
  scoreDesign,
  type TargetFailure,
} from "./score.js";
import { type StorageOptions, storageOptions } from "./storage-options.js";

export interface AdviseOptions {
  /** The scenario design that is the current key; default the first. */
  baseline?: string;
  /** Nodes to plan for; default the baseline's or the scenario's node count. */
  nodes?: number;
  /** Simulated time per candidate; default the scenario's duration. */
  durationS?: number;
  mode?: SimulationMode;
  targets?: Partial<AdviceTargets>;
  /** Whether reads allow batching points per entity into one row; default true. */
  batching?: boolean;
  /** Multiple of today's workload to plan for; default the scenario's `growth`, else 1 (headroom.ts). */
  growth?: number;
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
   * `generated` (default): the advisor's own candidates for the baseline key. `scenario`: only the
   * scenario's designs, judged by the same rules, each on its own node count. `all` (what `lab` and
   * `advise --scenario` run): the scenario's designs, then the generated candidates they do not repeat.
   */
  candidates?: "generated" | "scenario" | "all";
  onProgress?: (progress: AdviceProgress) => void;
  /** The simulator the candidates run on; default simulateScenario (the lab passes a memo of it, src/lab/simulation-memo.ts). */
  simulate?: typeof simulateScenario;
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
  targets: AdviceTargets;
  /** The stated write rate (points per second, all groups). */
  writesPerS: number;
  /** The growth planned for (1: today's workload). */
  growth: number;
  /** How long rows stay, as storage is sized (undefined: neither the scenario nor a read says). */
  retention: Retention | undefined;
  /** What each field of the baseline key does in the workload. */
  roles: KeyRoles;
  /** The real key where the modelled one differs; schemas in the report and JSON read it. */
  realKey: RealKey;
  /** Every candidate on the planned nodes in enumeration order (as-is first), then those tried on more nodes. */
  candidates: EvaluatedCandidate[];
  recommended: JudgedCandidate | undefined;
  /** The design costing least per month on the nodes it needs at the stated growth, when it is not the recommendation. */
  cheapest: JudgedCandidate | undefined;
  /** When storage sizes the recommendation (else the current key): HDD and keeping fewer days, in nodes and dollars. */
  storageOptions: StorageOptions | undefined;
  /** Where the long scans go — Data Boost, change streams into BigQuery, Parquet — each priced with its analytical side. */
  analytical?: AnalyticalChoices;
  /** Every price the advice could use, with its source and whether the scenario or the default set it. */
  pricesUsed: PriceUsed[];
  /** The recommendation needs more nodes than planned for (nothing met the targets with headroom on them). */
  needsMoreNodes: boolean;
  /** Every other candidate, with why it loses: a code, the targets it misses, and the words. */
  losers: ({ name: string } & LossReason)[];
  /** Candidates left out once a simpler one met the targets with headroom (`exhaustive: false`). */
  notSimulated: string[];
  decision: DecisionRow[];
  beyondTheKey: BeyondTheKey[];
  /** The recommendation on the scenario's clusters: nodes per cluster, app profile per path, failover, cost. */
  multiCluster?: MultiClusterAnswer;
  /** The autoscaler's targets for the answer, 2× node scaling for the current key, tiered storage (cluster-options.ts). */
  clusterOptions?: ClusterOptions;
}

/** Node counts tried after the first estimate when nothing meets the targets there. */
const MORE_NODES_ATTEMPTS = 3;
/** Growth of the node count between attempts. */
const MORE_NODES_GROWTH = 1.25;
/** Bucket counts tried per kind of design on more nodes (the fewest that cover them). */
const BUCKET_CHOICES_ON_MORE_NODES = 2;
/** Node counts beyond this are not simulated (a workload that size needs a scenario of its own and a capacity plan). */
const MAX_NODES = 1000;

function selectBaseline(scenario: Scenario, name: string | undefined): ScenarioDesign {
  if (name === undefined) return scenario.designs[0]!;
  const design = scenario.designs.find((each) => each.name === name);
  if (!design) {
    const designs = scenario.designs.map((d) => d.name).join(", ");
    throw new AdviseOptionError(
      "baseline",
      name,
      designs,
      `baseline "${name}" is not a design of scenario "${scenario.name}"; designs: ${designs}`,
    );
  }
  return design;
}

/** The scenario with its whole workload (writes and reads) `factor` times today's. */
const withGrowth = (scenario: Scenario, factor: number): Scenario => ({
  ...scenario,
  workload: {
    ...scenario.workload,
    groups: scenario.workload.groups.map((group) => ({ ...group, writesPerS: group.writesPerS * factor })),
    reads: scenario.workload.reads.map((read) => ({ ...read, perS: read.perS * factor })),
  },
});

const bucketsOf = (candidate: CandidateDesign) =>
  candidate.changes.find((change) => change.kind === "salt")?.buckets ??
  candidate.design.schema.salt?.buckets ??
  1;

/** The changes of a candidate without bucket counts: salts over the same fields are one kind of design. */
const kindOf = (candidate: CandidateDesign) =>
  designName(
    candidate.changes.map((change) => (change.kind === "salt" ? { ...change, buckets: 0 } : change)),
  );

export function adviseScenario(scenario: Scenario, options: AdviseOptions = {}): Advice {
  const plan = planAdvice(scenario, options);
  const candidatesFor = candidateSource(scenario, plan, options);
  const judge = new CandidateJudge(plan, options.onProgress);
  const onPlanned = judgeOnPlannedNodes(
    candidatesFor(plan.nodes, options.buckets),
    judge,
    plan.nodes,
    options.exhaustive !== false,
  );
  const onMore = onPlanned.recommended
    ? { tried: [], recommended: undefined }
    : searchMoreNodes(onPlanned.evaluated, candidatesFor, judge, plan.nodes, options.buckets);
  return adviceFrom(scenario, plan, options, {
    evaluated: [...onPlanned.evaluated, ...onMore.tried],
    recommended: onPlanned.recommended ?? onMore.recommended,
    needsMoreNodes: onMore.recommended !== undefined,
    skipped: onPlanned.skipped,
  });
}

/** What the advice is for: the current key, the cluster it plans for, and how candidates are run and judged. */
interface AdvicePlan {
  /** The current key's design, without a node count or storage of its own. */
  baseline: ScenarioDesign;
  nodes: number;
  storage: "ssd" | "hdd";
  targets: AdviceTargets;
  durationS: number;
  mode: SimulationMode;
  /** The scenario on the planned nodes and storage. */
  planned: Scenario;
  /** The stated write rate (points per second, all groups). */
  writesPerS: number;
  growth: number;
  /** How storage is sized on the planned storage type. */
  storagePlan: StoragePlan;
  simulate: typeof simulateScenario;
}

function planAdvice(scenario: Scenario, options: AdviseOptions): AdvicePlan {
  const {
    nodes: baselineNodes,
    storage: baselineStorage,
    ...baseline
  } = selectBaseline(scenario, options.baseline);
  const nodes = options.nodes ?? baselineNodes ?? scenario.cluster.nodes;
  if (!Number.isInteger(nodes) || nodes < 1)
    throw new AdviseOptionError(
      "nodes",
      String(nodes),
      "whole numbers ≥ 1",
      `nodes: ${nodes} is not a whole number ≥ 1`,
    );
  const storage = baselineStorage ?? scenario.cluster.storage;
  const planned: Scenario = { ...scenario, cluster: { ...scenario.cluster, nodes, storage } };
  const growth = options.growth ?? scenario.growth ?? DEFAULT_GROWTH;
  if (!(growth >= 1))
    throw new AdviseOptionError(
      "growth",
      String(growth),
      "numbers ≥ 1",
      `growth: ${growth} is not a number ≥ 1 (1 = today's workload)`,
    );
  return {
    baseline,
    nodes,
    storage,
    targets: { ...DEFAULT_ADVICE_TARGETS, ...options.targets },
    durationS: options.durationS ?? scenario.duration,
    mode: options.mode ?? "fast",
    planned,
    writesPerS: planned.workload.groups.reduce((sum, group) => sum + group.writesPerS, 0),
    growth,
    storagePlan: storagePlan(planned, storage),
    simulate: options.simulate ?? simulateScenario,
  };
}

/** The candidates to judge on a node count, with the salt bucket counts to try (undefined: the usual choices). */
type CandidateSource = (onNodes: number, buckets: readonly number[] | undefined) => CandidateDesign[];

/**
 * The advisor's own candidates for the current key, the scenario's designs (`candidates: "scenario"`),
 * or both (`"all"`): the scenario's first, the generated ones they repeat (same name or key) left out.
 */
function candidateSource(scenario: Scenario, plan: AdvicePlan, options: AdviseOptions): CandidateSource {
  const generated: CandidateSource = (onNodes, buckets) =>
    enumerateCandidates(
      { ...plan.planned, cluster: { ...plan.planned.cluster, nodes: onNodes } },
      plan.baseline,
      {
        nodes: onNodes,
        ...(options.batching === undefined ? {} : { batching: options.batching }),
        ...(buckets === undefined ? {} : { buckets }),
        ...(options.realKey === undefined ? {} : { realKey: options.realKey }),
      },
    );
  if (options.candidates === undefined || options.candidates === "generated") return generated;
  const ownDesigns = scenarioCandidates(scenario.designs, selectBaseline(scenario, options.baseline));
  const listed: CandidateSource = (onNodes) =>
    onNodes === plan.nodes
      ? ownDesigns
      : // On more nodes, each design without a node count of its own.
        ownDesigns.map((candidate) => {
          const { nodes: _own, ...design } = candidate.design;
          return { ...candidate, design };
        });
  if (options.candidates === "scenario") return listed;
  const names = new Set(ownDesigns.map((candidate) => candidate.name));
  const keys = new Set(ownDesigns.map((candidate) => designKey(candidate.design)));
  return (onNodes, buckets) => [
    ...listed(onNodes, buckets),
    ...generated(onNodes, buckets).filter(
      (candidate) => !names.has(candidate.name) && !keys.has(designKey(candidate.design)),
    ),
  ];
}

/** What makes two designs the same key: the schema without its name, and the batching. */
const designKey = (design: ScenarioDesign) =>
  JSON.stringify({ ...design.schema, name: "", batch: design.batch ?? null });

/** Simulates and scores candidates against the plan's targets, reporting each run's progress. */
class CandidateJudge {
  private readonly baselineFootprint: KeyFootprint;
  /** Simulations started so far. */
  private simulated = 0;
  /** Simulations expected in all, for progress (more may follow). */
  private expected = 0;

  constructor(
    private readonly plan: AdvicePlan,
    private readonly onProgress: ((progress: AdviceProgress) => void) | undefined,
  ) {
    this.baselineFootprint = keyFootprint(plan.planned, plan.baseline);
  }

  /** Progress counts `count` runs in all from here. */
  expectRuns(count: number): void {
    this.expected = count;
  }

  /** Progress counts one more run than those started so far. */
  expectOneMoreRun(): void {
    this.expected = this.simulated + 1;
  }

  evaluate(candidate: CandidateDesign, nodes: number): EvaluatedCandidate {
    const { planned, baseline, targets } = this.plan;
    const design = candidate.design;
    // A cluster at node scaling factor 2 has an even node count.
    const onNodes = roundUpToStep(nodes, nodeScalingFactorOf(planned, design));
    let reads: EvaluatedCandidate["reads"] = [];
    try {
      reads = readServices(planned, design, baseline);
      const footprint: KeyFootprint = keyFootprint(planned, design);
      const result = this.simulate(planned, design, reads, onNodes, design.name);
      const scores = scoreDesign(result, footprint, this.baselineFootprint, targets, this.plan.storagePlan);
      const { growth, storage } = this.plan;
      const sizing = designSizing(scores, targets, this.plan.storagePlan, growth);
      const cycle = result.summary.cycle;
      return {
        kind: "judged",
        candidate,
        nodes: onNodes,
        result,
        scores,
        sizing,
        ...(sizing.atGrowth.total === null ? {} : { cost: this.costOf(sizing.atGrowth.total, sizing) }),
        ...(cycle === null
          ? {}
          : { autoscaled: autoscaledRange(planned, cycle, onNodes, sizing.atGrowth, storage, growth) }),
        reads,
        failures: [
          ...keyFailures(candidate, reads, writingNodes(onNodes, sizing.atGrowth)),
          ...failedTargets(scores, targets),
        ],
      };
    } catch (error) {
      if (error instanceof SimulationCancelled) throw error;
      return { kind: "failed", candidate, nodes: onNodes, reads, error: (error as Error).message };
    }
  }

  /** What a design costs per month on `nodes` with the bytes it keeps at the stated growth. */
  costOf(nodes: number, sizing: { atGrowth: { storedBytes: number } }): MonthlyCost {
    return monthlyCost(this.plan.planned, nodes, this.plan.storage, sizing.atGrowth.storedBytes);
  }

  /**
   * A design that meets the targets, with its check at the stated growth (the same object when it
   * has one already): at 1 (today's workload) it is its own run; above, it runs again with the
   * workload grown (without the reads it cannot place).
   */
  withHeadroom(evaluated: JudgedCandidate): JudgedCandidate {
    return evaluated.headroom ? evaluated : { ...evaluated, headroom: this.headroomOf(evaluated) };
  }

  private headroomOf(evaluated: JudgedCandidate): HeadroomCheck {
    const { planned, targets, writesPerS, growth } = this.plan;
    if (growth === 1) return { growth, writesPerS, scores: evaluated.scores, failures: [], breaksAt: null };
    const scaled = withGrowth(planned, growth);
    const design = evaluated.candidate.design;
    const result = this.simulate(
      scaled,
      design,
      evaluated.reads,
      evaluated.nodes,
      `${design.name} at ${growth}×`,
    );
    const scores = scoreDesign(
      result,
      keyFootprint(scaled, design),
      this.baselineFootprint,
      targets,
      this.plan.storagePlan,
    );
    return {
      growth,
      writesPerS: growth * writesPerS,
      scores,
      failures: failedTargets(scores, targets),
      breaksAt: breakingRate(writesPerS, evaluated.scores, scores, targets, growth),
    };
  }

  /**
   * The simplest design meeting the targets at the stated growth, checked in simplicity order; none
   * when a simpler one misses there only for want of nodes (it is tried on more nodes instead: a
   * capacity miss is no reason to change the key).
   */
  simplestWithHeadroom(evaluated: readonly EvaluatedCandidate[]): {
    /** `evaluated`, those whose headroom was checked carrying it. */
    checked: EvaluatedCandidate[];
    recommended: JudgedCandidate | undefined;
  } {
    const checked = [...evaluated];
    for (const each of evaluated.filter(meetsTargets).sort(simplicityOrder)) {
      const withHeadroom = this.withHeadroom(each);
      checked[evaluated.indexOf(each)] = withHeadroom;
      if (meetsTargetsWithHeadroom(withHeadroom)) return { checked, recommended: withHeadroom };
      if (needsNodesAtGrowth(withHeadroom)) break;
    }
    return { checked, recommended: undefined };
  }

  private simulate(
    scenario: Scenario,
    design: ScenarioDesign,
    reads: readonly ReadService[],
    nodes: number,
    label: string,
  ): DesignResult {
    const { durationS, mode, simulate } = this.plan;
    return simulate(candidateScenario(scenario, design, reads, nodes), {
      durationS,
      mode,
      onProgress: this.progressOf(label),
    }).designs[0]!;
  }

  private progressOf(label: string) {
    const index = this.simulated++;
    return (progress: { doneS: number; totalS: number }) =>
      this.onProgress?.({
        candidate: label,
        index,
        count: Math.max(this.expected, this.simulated),
        doneS: progress.doneS,
        totalS: progress.totalS,
      });
  }
}

/**
 * Judges the candidates on the planned nodes, simplest first a tier (complexity and bucket count) at
 * a time, so a walk that is not exhaustive stops where the simplicity order would; the evaluated come
 * back in enumeration order (the current key first, its headroom checked when it meets the targets).
 */
function judgeOnPlannedNodes(
  candidates: readonly CandidateDesign[],
  judge: CandidateJudge,
  nodes: number,
  exhaustive: boolean,
): {
  evaluated: EvaluatedCandidate[];
  recommended: JudgedCandidate | undefined;
  skipped: CandidateDesign[];
} {
  judge.expectRuns(candidates.length);
  let evaluated: EvaluatedCandidate[] = [];
  let recommended: JudgedCandidate | undefined;
  const tiers = new Map<string, CandidateDesign[]>();
  for (const candidate of [...candidates].sort(
    (a, b) => a.complexity - b.complexity || bucketsOf(a) - bucketsOf(b),
  )) {
    const tier = `${candidate.complexity}/${bucketsOf(candidate)}`;
    tiers.set(tier, [...(tiers.get(tier) ?? []), candidate]);
  }
  const skipped: CandidateDesign[] = [];
  for (const tier of tiers.values()) {
    if (recommended && !exhaustive) {
      skipped.push(...tier);
      continue;
    }
    evaluated.push(...tier.map((candidate) => judge.evaluate(candidate, nodesOf(candidate, nodes))));
    if (recommended) continue;
    ({ checked: evaluated, recommended } = judge.simplestWithHeadroom(evaluated));
  }
  evaluated.sort((a, b) => candidates.indexOf(a.candidate) - candidates.indexOf(b.candidate));
  // The current key's headroom is reported even when it is not the recommendation.
  const asIs = evaluated[0]!;
  if (meetsTargets(asIs)) evaluated[0] = judge.withHeadroom(asIs);
  return { evaluated, recommended, skipped };
}

/** A scenario's design runs on its own node count, where it has one. */
const nodesOf = (candidate: CandidateDesign, onNodes: number) => candidate.design.nodes ?? onNodes;

/** The nodes a design needs at the stated growth (sizing.ts), null when no count meets the targets. */
const nodesAtGrowth = (evaluated: EvaluatedCandidate) =>
  evaluated.kind === "judged" ? evaluated.sizing.atGrowth.total : null;

/** The nodes at the stated growth of the capacity-bound designs that more nodes help. */
const capacityNodesAtGrowth = (evaluated: readonly EvaluatedCandidate[]): number[] =>
  evaluated.flatMap((each) => {
    const needed = nodesAtGrowth(each);
    return capacityBound(each) && needed !== null ? [needed] : [];
  });

/**
 * When nothing meets the targets at the stated growth on the planned nodes: more nodes help designs
 * whose load is spread, so their kinds are tried on the fewest nodes the sizing rules give them,
 * growing the node count a few times while a tried design still points the way.
 */
function searchMoreNodes(
  onPlanned: readonly EvaluatedCandidate[],
  candidatesFor: CandidateSource,
  judge: CandidateJudge,
  nodes: number,
  buckets: readonly number[] | undefined,
): { tried: EvaluatedCandidate[]; recommended: JudgedCandidate | undefined } {
  const spread = onPlanned.filter((each) => capacityBound(each) && nodesAtGrowth(each) !== null);
  const kinds = new Set(spread.map((each) => kindOf(each.candidate)));
  // Where storage sizes every spread design: the most nodes one needs for its CPU at the stated growth.
  const storageBound = spread.every(
    (each) => each.kind === "judged" && each.sizing.atGrowth.bound === "storage",
  );
  const cpuNodes = Math.max(
    ...spread.map((each) => (each.kind === "judged" ? (each.sizing.atGrowth.cpu ?? nodes) : nodes)),
  );
  const tried: EvaluatedCandidate[] = [];
  let onNodes = Math.max(nodes + 1, Math.min(...capacityNodesAtGrowth(spread)));
  for (let attempt = 0; kinds.size > 0 && attempt <= MORE_NODES_ATTEMPTS && onNodes <= MAX_NODES; attempt++) {
    const triedHere: EvaluatedCandidate[] = [];
    // Per kind, its fewest buckets for these nodes: more buckets add fan-out, not capacity.
    const perKind = new Map<string, number>();
    // Storage may ask for more nodes than the writes: the buckets need only cover those the CPU needs.
    const writing = storageBound ? Math.max(1, Math.min(onNodes, cpuNodes)) : onNodes;
    // The bucket counts asked for that cover them, else the usual choices for them.
    const covering = buckets?.filter((count) => count >= writing);
    const sorted = candidatesFor(
      onNodes,
      covering?.length ? covering : writing < onNodes ? saltBucketChoices(writing) : undefined,
    )
      .filter((candidate) => {
        const kind = kindOf(candidate);
        const count = (perKind.get(kind) ?? 0) + 1;
        perKind.set(kind, count);
        return kinds.has(kind) && count <= BUCKET_CHOICES_ON_MORE_NODES;
      })
      .sort((a, b) => a.complexity - b.complexity || bucketsOf(a) - bucketsOf(b));
    for (const candidate of sorted) {
      judge.expectOneMoreRun();
      const evaluated = judge.evaluate(candidate, onNodes);
      const each = meetsTargets(evaluated) ? judge.withHeadroom(evaluated) : evaluated;
      triedHere.push(each);
      tried.push(each);
      if (meetsTargetsWithHeadroom(each)) return { tried, recommended: each };
      // A simpler design short only of nodes at the growth is tried on more, before any bigger change.
      if (needsNodesAtGrowth(each)) break;
    }
    const needed = capacityNodesAtGrowth(triedHere);
    // Nothing tried here could carry the load on more nodes: stop rather than grow without a lead.
    if (needed.length === 0) break;
    onNodes = Math.max(Math.ceil(onNodes * MORE_NODES_GROWTH), Math.min(...needed));
  }
  return { tried, recommended: undefined };
}

/** The advice from what was judged: the recommendation, why each other candidate loses, and the salting guide's terms. */
function adviceFrom(
  scenario: Scenario,
  plan: AdvicePlan,
  options: AdviseOptions,
  judged: {
    evaluated: EvaluatedCandidate[];
    recommended: JudgedCandidate | undefined;
    needsMoreNodes: boolean;
    skipped: CandidateDesign[];
  },
): Advice {
  const { evaluated, recommended, needsMoreNodes, skipped } = judged;
  const { planned, nodes } = plan;
  const asIs = evaluated[0]!;
  return {
    scenario: scenario.name,
    ...(scenario.description === undefined ? {} : { description: scenario.description }),
    ...(scenario.source === undefined ? {} : { source: scenario.source }),
    nodes,
    storage: plan.storage,
    durationS: plan.durationS,
    mode: plan.mode,
    targets: plan.targets,
    writesPerS: plan.writesPerS,
    growth: plan.growth,
    retention: plan.storagePlan.retention,
    roles: keyRoles(planned, plan.baseline.schema),
    realKey: options.realKey ?? MODELLED_AS_IS,
    candidates: evaluated,
    recommended,
    cheapest: cheapestOf(evaluated, recommended),
    storageOptions: storageOptions(planned, densestRun(evaluated, recommended ?? asIs), plan),
    ...analyticalOf(planned, densestRun(evaluated, recommended ?? asIs), plan),
    pricesUsed: pricesUsed(planned),
    needsMoreNodes,
    losers: evaluated
      .filter((each) => each !== recommended)
      .map((each) => ({ name: candidateLabel(each, nodes), ...lossReason(each, recommended) })),
    notSimulated: skipped.map((candidate) => candidate.name),
    decision: decisionTable(planned, asIs, evaluated),
    beyondTheKey: beyondTheKey(planned, asIs, recommended, plan.targets),
    ...multiClusterOf(planned, recommended, plan),
    ...clusterOptionsOf(planned, recommended, asIs, plan),
  };
}

/** The cluster options for the answer (the recommendation, else the current key) when it was judged. */
function clusterOptionsOf(
  planned: Scenario,
  recommended: JudgedCandidate | undefined,
  asIs: EvaluatedCandidate,
  plan: AdvicePlan,
): { clusterOptions?: ClusterOptions } {
  const current = asIs.kind === "judged" ? asIs : undefined;
  const answer = recommended ?? current;
  return answer ? { clusterOptions: clusterOptions(planned, answer, current, plan) } : {};
}

/** Where the analytical scans go, priced three ways (analytical-choices.ts), when there are any. */
function analyticalOf(
  planned: Scenario,
  run: EvaluatedCandidate,
  plan: AdvicePlan,
): { analytical?: AnalyticalChoices } {
  const choices = analyticalChoices(planned, run, plan);
  return choices ? { analytical: choices } : {};
}

/** The recommendation on the scenario's clusters, when it declares replication. */
function multiClusterOf(
  planned: Scenario,
  recommended: JudgedCandidate | undefined,
  plan: AdvicePlan,
): { multiCluster?: MultiClusterAnswer } {
  if (!recommended || !planned.replication) return {};
  const answer = multiClusterAnswer(planned, recommended, {
    durationS: plan.durationS,
    mode: plan.mode,
    growth: plan.growth,
    simulate: plan.simulate,
  });
  return answer ? { multiCluster: answer } : {};
}

/**
 * The run of the same design on the fewest nodes: the most loaded one sizes CPU best (on many
 * idle nodes a few percent of noise reads as a key range).
 */
function densestRun(
  evaluated: readonly EvaluatedCandidate[],
  design: EvaluatedCandidate,
): EvaluatedCandidate {
  return evaluated
    .filter(
      (each) =>
        each.candidate.name === design.candidate.name &&
        each.kind === "judged" &&
        // A run where the design's load sat on a key range (a new table warming up) sizes no CPU.
        each.sizing.atGrowth.cpu !== null,
    )
    .reduce<EvaluatedCandidate>((densest, each) => (each.nodes < densest.nodes ? each : densest), design);
}

/**
 * The planned scenario as one candidate is simulated: on its nodes, with only the declared reads
 * the simulator places for it (the others are scored from their planned fan-out).
 */
function candidateScenario(
  planned: Scenario,
  design: ScenarioDesign,
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
  evaluated: EvaluatedCandidate,
  modelEnd: ModelEnd,
  onProgress?: (progress: SimulationProgress) => void,
  simulate: typeof simulateScenario = simulateScenario,
): DesignResult {
  const planned = { ...scenario, cluster: { ...scenario.cluster, storage: advice.storage } };
  return simulate(candidateScenario(planned, evaluated.candidate.design, evaluated.reads, evaluated.nodes), {
    durationS: advice.durationS,
    mode: advice.mode,
    modelEnd,
    ...(onProgress ? { onProgress } : {}),
  }).designs[0]!;
}

/** A candidate's name, with its node count when it differs from the planned one. */
export function candidateLabel(evaluated: EvaluatedCandidate, plannedNodes: number): string {
  // A scenario's design with a node count of its own is named for it already (`as-is-on-24-nodes`).
  return evaluated.nodes === plannedNodes || evaluated.candidate.design.nodes !== undefined
    ? evaluated.candidate.name
    : `${evaluated.candidate.name} on ${evaluated.nodes} nodes`;
}

/**
 * The nodes a salt's buckets must cover on `onNodes`: where storage sizes the cluster, those the
 * CPU needs (the rest hold data, not the write tails); else all of them (the salting guide).
 */
const writingNodes = (onNodes: number, needed: { cpu: number | null; bound: "cpu" | "storage" }) =>
  needed.bound === "storage" && needed.cpu !== null ? Math.max(1, Math.min(onNodes, needed.cpu)) : onNodes;

/** Failures of the key itself, whatever the load: reads it cannot serve, too few salt buckets. */
function keyFailures(
  candidate: CandidateDesign,
  reads: EvaluatedCandidate["reads"],
  /** The nodes the writes need (writingNodes). */
  nodes: number,
): TargetFailure[] {
  const failures: TargetFailure[] = reads.flatMap((read): TargetFailure[] =>
    read.status === "cannot-serve" ? [{ target: "read", read: read.name, reason: read.reason }] : [],
  );
  for (const change of candidate.changes) {
    if (change.kind === "salt" && change.buckets < nodes)
      failures.push({ target: "buckets", buckets: change.buckets, nodes });
  }
  return failures;
}

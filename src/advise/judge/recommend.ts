/**
 * Picks the simplest candidate that meets the targets and says, for every other candidate, why it
 * loses. "Simplest" is an order, not a score (docs/advisor.md): fewer and cheaper changes first
 * (KEY_CHANGE_COMPLEXITY), then fewer salt buckets, then the smaller worst read fan-out, then cost.
 */
import type { DesignResult } from "../../sim/results.js";
import type { AutoscaledRange } from "../size/autoscaled-range.js";
import type { MonthlyCost } from "../size/cost.js";
import type { DesignSizing } from "../size/sizing.js";
import type { CandidateDesign } from "./candidates.js";
import { type HeadroomCheck, roughRate } from "./headroom.js";
import type { ReadService } from "./read-service.js";
import type { DesignScores, TargetFailure } from "./score.js";

/** A candidate as run on a node count, and how it serves each declared read. */
interface CandidateRun {
  candidate: CandidateDesign;
  /** Nodes it was simulated on. */
  nodes: number;
  /** Every declared read: simulated, not simulated (with its planned fan-out), or not servable as key ranges. */
  reads: ReadService[];
}

/** A candidate the simulator replayed, scored against the targets and sized. */
export interface JudgedCandidate extends CandidateRun {
  kind: "judged";
  result: DesignResult;
  scores: DesignScores;
  /** Targets missed; empty when the design meets them all. */
  failures: TargetFailure[];
  /** Nodes it needs for CPU and storage today and at the stated growth (sizing.ts). */
  sizing: DesignSizing;
  /** Per month on the nodes it needs at the stated growth (absent when no node count meets the targets). */
  cost?: MonthlyCost;
  /** For a load with a cycle: the nodes an autoscaler runs over it at the stated growth, each end priced per month. */
  autoscaled?: AutoscaledRange;
  /** The check at the stated growth, for designs that meet the targets and were checked. */
  headroom?: HeadroomCheck;
}

/** A candidate the simulator could not replay. */
export interface FailedCandidate extends CandidateRun {
  kind: "failed";
  /** Why the simulator could not replay the workload under this design. */
  error: string;
}

export type EvaluatedCandidate = JudgedCandidate | FailedCandidate;

export const meetsTargets = (evaluated: EvaluatedCandidate): evaluated is JudgedCandidate =>
  evaluated.kind === "judged" && evaluated.failures.length === 0;

/** Meets the targets at the stated rate and at the stated growth. */
export const meetsTargetsWithHeadroom = (evaluated: EvaluatedCandidate): evaluated is JudgedCandidate =>
  meetsTargets(evaluated) && evaluated.headroom !== undefined && evaluated.headroom.failures.length === 0;

/** The widest fan-out of any declared read (simulated or planned). */
export const worstFanout = (evaluated: EvaluatedCandidate) =>
  Math.max(1, ...evaluated.reads.map((read) => read.fanout ?? 1));

/** Salt buckets of a judged design; 1 for one that could not be simulated (no bucket count was measured). */
const bucketsOf = (evaluated: EvaluatedCandidate) =>
  evaluated.kind === "judged" ? evaluated.scores.buckets : 1;

/** Negative when `a` is simpler than `b`. */
export function simplicityOrder(a: EvaluatedCandidate, b: EvaluatedCandidate): number {
  return (
    a.candidate.complexity - b.candidate.complexity ||
    bucketsOf(a) - bucketsOf(b) ||
    worstFanout(a) - worstFanout(b) ||
    costPerHourOf(a) - costPerHourOf(b) ||
    a.candidate.name.localeCompare(b.candidate.name)
  );
}

const costPerHourOf = (evaluated: EvaluatedCandidate) =>
  evaluated.kind === "judged" ? evaluated.scores.costPerHour : 0;

/** The simplest candidate meeting every target, if any does. */
export function simplestMeeting(evaluated: readonly EvaluatedCandidate[]): JudgedCandidate | undefined {
  return evaluated.filter(meetsTargets).sort(simplicityOrder)[0];
}

/**
 * The design costing least per month on the nodes it needs at the stated growth, among those that
 * meet the targets there or miss only targets more nodes fix; undefined when that is the recommendation.
 */
export function cheapestOf(
  evaluated: readonly EvaluatedCandidate[],
  recommended: JudgedCandidate | undefined,
): JudgedCandidate | undefined {
  const priced = evaluated
    .filter((each) => meetsTargets(each) || capacityBound(each))
    .flatMap((each) => (each.cost === undefined ? [] : [{ each, cost: each.cost }]));
  const cheapest = priced.sort((a, b) => a.cost.total - b.cost.total || simplicityOrder(a.each, b.each))[0];
  const simplestCost = recommended?.cost?.total;
  return cheapest && simplestCost !== undefined && cheapest.cost.total < simplestCost
    ? cheapest.each
    : undefined;
}

/** Targets more nodes help with when the load is spread (unservable reads and too few buckets are the key's doing). */
const CAPACITY_TARGETS: ReadonlySet<TargetFailure["target"]> = new Set([
  "hottestCpu",
  "averageCpu",
  "warmUpCpu",
  "shed",
  "storage",
  "headroom",
]);

/** Whether more nodes would make this design meet the targets: its load is spread and it misses only capacity targets (CPU, storage). */
export const capacityBound = (evaluated: EvaluatedCandidate): evaluated is JudgedCandidate =>
  evaluated.kind === "judged" &&
  evaluated.scores.nodesNeeded != null &&
  evaluated.failures.every((failure) => CAPACITY_TARGETS.has(failure.target));

/**
 * Meets the targets today and misses at the stated growth only on targets more nodes fix, with its
 * load spread: it needs more nodes at that growth, not a different key.
 */
export const needsNodesAtGrowth = (evaluated: EvaluatedCandidate): evaluated is JudgedCandidate =>
  meetsTargets(evaluated) &&
  evaluated.headroom !== undefined &&
  evaluated.headroom.failures.length > 0 &&
  evaluated.headroom.failures.every((failure) => CAPACITY_TARGETS.has(failure.target)) &&
  evaluated.sizing.atGrowth.total != null;

/**
 * Why a candidate is not the recommendation, as a code:
 * - `not-simulated`: the simulator could not replay the workload under it;
 * - `misses-targets`: it misses a target today that more nodes do not fix (a read, the buckets, a row) or that the planned nodes already should meet;
 * - `more-nodes-do-not-help`: it misses only targets more nodes help with, but its load sits on a key range;
 * - `needs-more-nodes`: it misses only targets more nodes help with, and would meet them on more nodes;
 * - `misses-at-growth`: it meets the targets today but not at the stated growth;
 * - `meets-targets`: it meets them, and nothing is recommended;
 * - `bigger-change`, `more-buckets`, `wider-fan-out`, `more-nodes`: it meets them, but is later in the simplicity order for that reason;
 * - `later-in-order`: it meets them and ties on all of those (costs more, or its name sorts later).
 */
export type LossCode =
  | "not-simulated"
  | "misses-targets"
  | "more-nodes-do-not-help"
  | "needs-more-nodes"
  | "misses-at-growth"
  | "meets-targets"
  | "bigger-change"
  | "more-buckets"
  | "wider-fan-out"
  | "more-nodes"
  | "later-in-order";

export interface LossReason {
  code: LossCode;
  /** The targets it misses (at the stated growth for `misses-at-growth`); empty for the other codes. */
  missed: TargetFailure["target"][];
  /** The same in one sentence, for the reports. */
  reason: string;
}

const targetsOf = (failures: readonly TargetFailure[]) => failures.map((failure) => failure.target);
const textOf = (failures: readonly TargetFailure[]) => failures.map((failure) => failure.text).join("; ");

/** Why `loser` is not the recommendation. */
export function lossReason(loser: EvaluatedCandidate, chosen: JudgedCandidate | undefined): LossReason {
  if (loser.kind === "failed")
    return { code: "not-simulated", missed: [], reason: `could not be simulated: ${loser.error}` };
  if (!meetsTargets(loser)) return targetsMissed(loser);
  if (loser.headroom && loser.headroom.failures.length > 0) {
    const { growth, writesPerS, failures, breaksAt } = loser.headroom;
    return {
      code: "misses-at-growth",
      missed: targetsOf(failures),
      reason: `meets the targets today but not at the stated growth, ${growth}× (${roughRate(writesPerS)} writes/s): ${textOf(failures)}${breaksAt ? `; it breaks at about ${roughRate(breaksAt.writesPerS)} writes/s` : ""}`,
    };
  }
  const meets = (code: LossCode, reason: string): LossReason => ({ code, missed: [], reason });
  if (!chosen) return meets("meets-targets", "meets the targets");
  const a = loser.candidate;
  const b = chosen.candidate;
  if (a.complexity !== b.complexity)
    return meets(
      "bigger-change",
      `meets the targets but is a bigger change (complexity ${a.complexity} vs ${b.complexity})`,
    );
  if (loser.scores.buckets !== chosen.scores.buckets)
    return meets(
      "more-buckets",
      `meets the targets with more salt buckets (${loser.scores.buckets} vs ${chosen.scores.buckets}): more read fan-out risk and key bytes for no gain`,
    );
  if (worstFanout(loser) !== worstFanout(chosen))
    return meets(
      "wider-fan-out",
      `meets the targets but reads fan out wider (×${worstFanout(loser)} vs ×${worstFanout(chosen)})`,
    );
  if (loser.nodes !== chosen.nodes)
    return meets(
      "more-nodes",
      `meets the targets on ${loser.nodes} nodes; the recommendation needs ${chosen.nodes}`,
    );
  return meets("later-in-order", "meets the targets but costs more or ties later in the simplicity order");
}

/** A judged design missing targets today: which, and whether more nodes would fix them. */
function targetsMissed(loser: JudgedCandidate): LossReason {
  const missed = targetsOf(loser.failures);
  const nodesNeeded = loser.scores.nodesNeeded;
  const capacityOnly = missed.every((target) => CAPACITY_TARGETS.has(target));
  const [code, more]: [LossCode, string] = !capacityOnly
    ? ["misses-targets", ""]
    : nodesNeeded == null
      ? ["more-nodes-do-not-help", "more nodes would not fix it (the load sits on a key range)"]
      : nodesNeeded > loser.nodes
        ? ["needs-more-nodes", `would need ${nodesNeeded} nodes at today's rate`]
        : ["misses-targets", ""];
  return { code, missed, reason: [textOf(loser.failures), more].filter(Boolean).join("; ") };
}

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

export interface EvaluatedCandidate {
  candidate: CandidateDesign;
  /** Nodes it was simulated on. */
  nodes: number;
  result?: DesignResult;
  scores?: DesignScores;
  /** Targets missed; empty when the design meets them all. */
  failures: TargetFailure[];
  /** Every declared read: simulated, not simulated (with its planned fan-out), or not servable as key ranges. */
  reads: ReadService[];
  /** The check at the stated growth, for designs that meet the targets and were checked. */
  headroom?: HeadroomCheck;
  /** Nodes it needs for CPU and storage today and at the stated growth (sizing.ts). */
  sizing?: DesignSizing;
  /** Per month on the nodes it needs at the stated growth (absent when no node count meets the targets). */
  cost?: MonthlyCost;
  /** For a load with a cycle: the nodes an autoscaler runs over it at the stated growth, each end priced per month. */
  autoscaled?: AutoscaledRange;
  /** Why the simulator could not replay the workload under this design. */
  error?: string;
}

export const meetsTargets = (evaluated: EvaluatedCandidate) =>
  evaluated.error === undefined && evaluated.scores !== undefined && evaluated.failures.length === 0;

/** Meets the targets at the stated rate and at the stated growth. */
export const meetsTargetsWithHeadroom = (evaluated: EvaluatedCandidate) =>
  meetsTargets(evaluated) && evaluated.headroom !== undefined && evaluated.headroom.failures.length === 0;

/** The widest fan-out of any declared read (simulated or planned). */
export const worstFanout = (evaluated: EvaluatedCandidate) =>
  Math.max(1, ...evaluated.reads.map((read) => read.fanout ?? 1));

/** Negative when `a` is simpler than `b`. */
export function simplicityOrder(a: EvaluatedCandidate, b: EvaluatedCandidate): number {
  return (
    a.candidate.complexity - b.candidate.complexity ||
    (a.scores?.buckets ?? 1) - (b.scores?.buckets ?? 1) ||
    worstFanout(a) - worstFanout(b) ||
    (a.scores?.costPerHour ?? 0) - (b.scores?.costPerHour ?? 0) ||
    a.candidate.name.localeCompare(b.candidate.name)
  );
}

/** The simplest candidate meeting every target, if any does. */
export function simplestMeeting(evaluated: readonly EvaluatedCandidate[]): EvaluatedCandidate | undefined {
  return evaluated.filter(meetsTargets).sort(simplicityOrder)[0];
}

/**
 * The design costing least per month on the nodes it needs at the stated growth, among those that
 * meet the targets there or miss only targets more nodes fix; undefined when that is the recommendation.
 */
export function cheapestOf(
  evaluated: readonly EvaluatedCandidate[],
  recommended: EvaluatedCandidate | undefined,
): EvaluatedCandidate | undefined {
  const priced = evaluated.filter(
    (each) => each.cost !== undefined && (meetsTargets(each) || capacityBound(each)),
  );
  const cheapest = priced.sort((a, b) => a.cost!.total - b.cost!.total || simplicityOrder(a, b))[0];
  const simplestCost = recommended?.cost?.total;
  return cheapest && simplestCost !== undefined && cheapest.cost!.total < simplestCost ? cheapest : undefined;
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
export const capacityBound = (evaluated: EvaluatedCandidate) =>
  evaluated.error === undefined &&
  evaluated.scores?.nodesNeeded != null &&
  evaluated.failures.every((failure) => CAPACITY_TARGETS.has(failure.target));

/**
 * Meets the targets today and misses at the stated growth only on targets more nodes fix, with its
 * load spread: it needs more nodes at that growth, not a different key.
 */
export const needsNodesAtGrowth = (evaluated: EvaluatedCandidate) =>
  meetsTargets(evaluated) &&
  evaluated.headroom !== undefined &&
  evaluated.headroom.failures.length > 0 &&
  evaluated.headroom.failures.every((failure) => CAPACITY_TARGETS.has(failure.target)) &&
  evaluated.sizing?.atGrowth.total != null;

/** Why `loser` is not the recommendation, in one sentence. */
export function lossReason(loser: EvaluatedCandidate, chosen: EvaluatedCandidate | undefined): string {
  if (loser.error !== undefined) return `could not be simulated: ${loser.error}`;
  if (!meetsTargets(loser)) {
    const nodesNeeded = loser.scores?.nodesNeeded;
    const capacityOnly = loser.failures.every((failure) => CAPACITY_TARGETS.has(failure.target));
    const more = !capacityOnly
      ? ""
      : nodesNeeded == null
        ? "more nodes would not fix it (the load sits on a key range)"
        : nodesNeeded > loser.nodes
          ? `would need ${nodesNeeded} nodes at today's rate`
          : "";
    return [loser.failures.map((failure) => failure.text).join("; "), more].filter(Boolean).join("; ");
  }
  if (loser.headroom && loser.headroom.failures.length > 0) {
    const breaks = loser.headroom.breaksAt;
    return `meets the targets today but not at the stated growth, ${loser.headroom.growth}× (${roughRate(loser.headroom.writesPerS)} writes/s): ${loser.headroom.failures.map((failure) => failure.text).join("; ")}${breaks ? `; it breaks at about ${roughRate(breaks.writesPerS)} writes/s` : ""}`;
  }
  if (!chosen) return "meets the targets";
  const a = loser.candidate;
  const b = chosen.candidate;
  if (a.complexity !== b.complexity)
    return `meets the targets but is a bigger change (complexity ${a.complexity} vs ${b.complexity})`;
  if ((loser.scores?.buckets ?? 1) !== (chosen.scores?.buckets ?? 1))
    return `meets the targets with more salt buckets (${loser.scores?.buckets} vs ${chosen.scores?.buckets}): more read fan-out risk and key bytes for no gain`;
  if (worstFanout(loser) !== worstFanout(chosen))
    return `meets the targets but reads fan out wider (×${worstFanout(loser)} vs ×${worstFanout(chosen)})`;
  if (loser.nodes !== chosen.nodes)
    return `meets the targets on ${loser.nodes} nodes; the recommendation needs ${chosen.nodes}`;
  return "meets the targets but costs more or ties later in the simplicity order";
}

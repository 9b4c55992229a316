/**
 * The judged candidates, and the simplest of them that meets the targets (why every other one
 * loses is loss-reason.ts). "Simplest" is an order, not a score (docs/advisor.md): fewer application
 * cores for the reads first (by doublings past a floor, `clientCoresTier`), then fewer and cheaper
 * changes (KEY_CHANGE_COMPLEXITY), then fewer salt buckets, then the smaller worst read fan-out, then cost.
 */
import type { DesignResult } from "../../sim/results/results.js";
import type { AutoscaledRange } from "../size/autoscaled-range.js";
import type { MonthlyCost } from "../size/cost.js";
import type { DesignSizing } from "../size/sizing.js";
import type { CandidateDesign } from "./candidates.js";
import type { HeadroomCheck } from "./headroom.js";
import type { ReadService } from "./read-service.js";
import type { DesignScores, TargetFailure, TargetName } from "./score.js";

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

/**
 * Application cores below which the client's reads do not weigh in the order: an assumption (two
 * 8-core application servers); a design whose reads fit there is not made simpler by needing fewer.
 */
export const CLIENT_CORES_FLOOR = 16;

/** The client cores a judged design's reads need; 0 for one that could not be simulated. */
export const clientCoresOf = (evaluated: EvaluatedCandidate) =>
  evaluated.kind === "judged" ? evaluated.scores.clientCores.cores : 0;

/**
 * A coarse level of a design's client cores: 0 up to the floor, one more per doubling above it.
 * Designs within a doubling of each other tie, so the model's uncertainty does not decide.
 */
export function clientCoresTier(cores: number): number {
  return cores <= CLIENT_CORES_FLOOR ? 0 : Math.ceil(Math.log2(cores / CLIENT_CORES_FLOOR));
}

/**
 * Negative when `a` is simpler than `b`. A design whose reads need a doubling more application
 * cores than another's (past the floor) is not the simpler one, however small its key change.
 */
export function simplicityOrder(a: EvaluatedCandidate, b: EvaluatedCandidate): number {
  return (
    clientCoresTier(clientCoresOf(a)) - clientCoresTier(clientCoresOf(b)) ||
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
export const CAPACITY_TARGETS: ReadonlySet<TargetName> = new Set<TargetName>([
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

/**
 * Picks the simplest candidate that meets the targets and says, for every other candidate, why it
 * loses. "Simplest" is an order, not a score (docs/advisor.md): fewer and cheaper changes first
 * (CHANGE_COMPLEXITY), then fewer salt buckets, then the smaller worst read fan-out, then cost.
 */
import type { DesignResult } from "../sim/results.js";
import type { Candidate } from "./candidates.js";
import { HEADROOM_FACTOR, type Headroom, roughRate } from "./headroom.js";
import type { ReadService } from "./read-service.js";
import type { Failure, Scores } from "./score.js";

export interface Evaluated {
  candidate: Candidate;
  /** Nodes it was simulated on. */
  nodes: number;
  result?: DesignResult;
  scores?: Scores;
  /** Targets missed; empty when the design meets them all. */
  failures: Failure[];
  /** Every declared read: simulated, not simulated (with its planned fan-out), or not servable as key ranges. */
  reads: ReadService[];
  /** The run at twice the write rate, for designs that meet the targets and were checked for headroom. */
  headroom?: Headroom;
  /** Why the simulator could not replay the workload under this design. */
  error?: string;
}

export const meets = (evaluated: Evaluated) =>
  evaluated.error === undefined && evaluated.scores !== undefined && evaluated.failures.length === 0;

/** Meets the targets at the stated rate and at twice it. */
export const meetsWithHeadroom = (evaluated: Evaluated) =>
  meets(evaluated) && evaluated.headroom !== undefined && evaluated.headroom.failures.length === 0;

/** The widest fan-out of any declared read (simulated or planned). */
export const worstFanout = (evaluated: Evaluated) =>
  Math.max(1, ...evaluated.reads.map((read) => read.fanout ?? 1));

/** Negative when `a` is simpler than `b`. */
export function simplicityOrder(a: Evaluated, b: Evaluated): number {
  return (
    a.candidate.complexity - b.candidate.complexity ||
    (a.scores?.buckets ?? 1) - (b.scores?.buckets ?? 1) ||
    worstFanout(a) - worstFanout(b) ||
    (a.scores?.costPerHour ?? 0) - (b.scores?.costPerHour ?? 0) ||
    a.candidate.name.localeCompare(b.candidate.name)
  );
}

/** The simplest candidate meeting every target, if any does. */
export function simplestMeeting(evaluated: readonly Evaluated[]): Evaluated | undefined {
  return evaluated.filter(meets).sort(simplicityOrder)[0];
}

/** Targets more nodes help with when the load is spread (unservable reads and too few buckets are the key's doing). */
const CAPACITY_TARGETS: ReadonlySet<Failure["target"]> = new Set([
  "hottestCpu",
  "averageCpu",
  "warmUpCpu",
  "shed",
  "storage",
  "headroom",
]);

/** Whether more nodes would make this design meet the targets: its load is spread and it misses only capacity targets (CPU, storage). */
export const capacityBound = (evaluated: Evaluated) =>
  evaluated.error === undefined &&
  evaluated.scores?.nodesNeeded != null &&
  evaluated.failures.every((failure) => CAPACITY_TARGETS.has(failure.target));

/** Why `loser` is not the recommendation, in one sentence. */
export function lossReason(loser: Evaluated, chosen: Evaluated | undefined): string {
  if (loser.error !== undefined) return `could not be simulated: ${loser.error}`;
  if (!meets(loser)) {
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
    return `meets the targets today but not at ${HEADROOM_FACTOR}× the write rate (${roughRate(loser.headroom.writesPerS)}/s): ${loser.headroom.failures.map((failure) => failure.text).join("; ")}${breaks ? `; it breaks at about ${roughRate(breaks.writesPerS)} writes/s` : ""}`;
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

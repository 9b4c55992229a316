/**
 * Picks the simplest candidate that meets the targets and says, for every other candidate, why it
 * loses. "Simplest" is an order, not a score (docs/advisor.md): fewer and cheaper changes first
 * (CHANGE_COMPLEXITY), then fewer salt buckets, then the smaller worst read fan-out, then cost.
 */
import type { DesignResult } from "../sim/results.js";
import type { Candidate } from "./candidates.js";
import type { Failure, Scores } from "./score.js";

export interface Evaluated {
  candidate: Candidate;
  /** Nodes it was simulated on. */
  nodes: number;
  result?: DesignResult;
  scores?: Scores;
  /** Targets missed; empty when the design meets them all. */
  failures: Failure[];
  /** Why the simulator could not replay the workload under this design (e.g. a read is no key range). */
  error?: string;
}

export const meets = (evaluated: Evaluated) =>
  evaluated.error === undefined && evaluated.scores !== undefined && evaluated.failures.length === 0;

const worstFanout = (evaluated: Evaluated) =>
  Math.max(1, ...(evaluated.scores?.reads.map((read) => read.fanout) ?? []));

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

/** Targets more nodes help with, when the load is spread (warm-up and shedding are the key's doing). */
const CAPACITY_TARGETS: ReadonlySet<Failure["target"]> = new Set(["hottestCpu", "averageCpu"]);

/**
 * When nothing meets the targets on the given nodes: the candidate that would on the fewest nodes
 * (its load spread evenly, so more nodes lower its hottest node, and it misses only CPU targets),
 * simplest first among equals.
 */
export function fewestNodesCandidate(evaluated: readonly Evaluated[]): Evaluated | undefined {
  return evaluated
    .filter(
      (each) =>
        each.scores?.nodesNeeded != null &&
        each.failures.every((failure) => CAPACITY_TARGETS.has(failure.target)),
    )
    .sort((a, b) => a.scores!.nodesNeeded! - b.scores!.nodesNeeded! || simplicityOrder(a, b))[0];
}

/** Why `loser` is not the recommendation, in one sentence. */
export function lossReason(loser: Evaluated, chosen: Evaluated | undefined): string {
  if (loser.error !== undefined) return `cannot serve the workload: ${loser.error}`;
  if (!meets(loser)) {
    const nodesNeeded = loser.scores?.nodesNeeded;
    const more =
      nodesNeeded == null
        ? "more nodes would not fix it (the load sits on a key range)"
        : nodesNeeded > loser.nodes
          ? `would need ${nodesNeeded} nodes`
          : "";
    return [loser.failures.map((failure) => failure.text).join("; "), more].filter(Boolean).join("; ");
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
  return "meets the targets but costs more or ties later in the simplicity order";
}

/**
 * Why a candidate is not the recommendation: a code for programs and tests, the targets it misses,
 * and one sentence for the reports, by the rules of recommend.ts.
 */
import { roughRate } from "./headroom.js";
import {
  CAPACITY_TARGETS,
  clientCoresOf,
  clientCoresTier,
  type EvaluatedCandidate,
  type JudgedCandidate,
  meetsTargets,
  worstFanout,
} from "./recommend.js";
import type { TargetFailure } from "./score.js";

/**
 * Why a candidate is not the recommendation, as a code:
 * - `not-simulated`: the simulator could not replay the workload under it;
 * - `misses-targets`: it misses a target today that more nodes do not fix (a read, the buckets, a row) or that the planned nodes already should meet;
 * - `more-nodes-do-not-help`: it misses only targets more nodes help with, but its load sits on a key range;
 * - `needs-more-nodes`: it misses only targets more nodes help with, and would meet them on more nodes;
 * - `misses-at-growth`: it meets the targets today but not at the stated growth;
 * - `meets-targets`: it meets them, and nothing is recommended;
 * - `more-client-cores`: it meets them, but its reads need a doubling more application cores;
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
  | "more-client-cores"
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
  const [loserCores, chosenCores] = [clientCoresOf(loser), clientCoresOf(chosen)];
  if (clientCoresTier(loserCores) !== clientCoresTier(chosenCores))
    return meets(
      "more-client-cores",
      `meets the targets but its reads need ${Math.round(loserCores)} application cores on the client against ${Math.round(chosenCores)}`,
    );
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

/**
 * Why a candidate is not the recommendation: a code for programs and tests, the targets it misses,
 * and one sentence for the reports, by the rules of recommend.ts.
 */
import { lossReasonText } from "./loss-reason-text.js";
import {
  CAPACITY_TARGETS,
  clientCoresOf,
  clientCoresTier,
  type EvaluatedCandidate,
  type JudgedCandidate,
  meetsTargets,
  worstFanout,
} from "./recommend.js";
import type { TargetFailure, TargetName } from "./score.js";

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

/** What a design missed, or what it was compared on, as measured. */
export type LossFacts =
  /** `error`: why the simulator could not replay the workload under it. */
  | { code: "not-simulated"; missed: []; error: string }
  | { code: "misses-targets" | "more-nodes-do-not-help"; missed: TargetName[]; failures: TargetFailure[] }
  /** `nodesNeeded`: the nodes on which it would meet the targets at today's rate. */
  | { code: "needs-more-nodes"; missed: TargetName[]; failures: TargetFailure[]; nodesNeeded: number }
  /** The check at `growth`× today (`writesPerS`), and where it breaks when a straight line says so. */
  | {
      code: "misses-at-growth";
      missed: TargetName[];
      failures: TargetFailure[];
      growth: number;
      writesPerS: number;
      breaksAtWritesPerS: number | null;
    }
  | { code: "meets-targets" | "later-in-order"; missed: [] }
  /** What it is compared on, its figure against the recommendation's (application cores, complexity, buckets, fan-out, nodes). */
  | {
      code: "more-client-cores" | "bigger-change" | "more-buckets" | "wider-fan-out" | "more-nodes";
      missed: [];
      loser: number;
      chosen: number;
    };

/** The facts, and the same in one sentence for the reports (loss-reason-text.ts). */
export type LossReason = LossFacts & { reason: string };

const targetsOf = (failures: readonly TargetFailure[]) => failures.map((failure) => failure.target);

/** Why `loser` is not the recommendation. */
export function lossReason(loser: EvaluatedCandidate, chosen: JudgedCandidate | undefined): LossReason {
  const facts = lossFacts(loser, chosen);
  return { ...facts, reason: lossReasonText(facts) };
}

function lossFacts(loser: EvaluatedCandidate, chosen: JudgedCandidate | undefined): LossFacts {
  if (loser.kind === "failed") return { code: "not-simulated", missed: [], error: loser.error };
  if (!meetsTargets(loser)) return targetsMissed(loser);
  if (loser.headroom && loser.headroom.failures.length > 0) {
    const { growth, writesPerS, failures, breaksAt } = loser.headroom;
    return {
      code: "misses-at-growth",
      missed: targetsOf(failures),
      failures,
      growth,
      writesPerS,
      breaksAtWritesPerS: breaksAt ? breaksAt.writesPerS : null,
    };
  }
  if (!chosen) return { code: "meets-targets", missed: [] };
  const compared = (
    code: Extract<LossFacts, { loser: number }>["code"],
    a: number,
    b: number,
  ): LossFacts => ({
    code,
    missed: [],
    loser: a,
    chosen: b,
  });
  const [loserCores, chosenCores] = [clientCoresOf(loser), clientCoresOf(chosen)];
  if (clientCoresTier(loserCores) !== clientCoresTier(chosenCores))
    return compared("more-client-cores", loserCores, chosenCores);
  const [a, b] = [loser.candidate, chosen.candidate];
  if (a.complexity !== b.complexity) return compared("bigger-change", a.complexity, b.complexity);
  if (loser.scores.buckets !== chosen.scores.buckets)
    return compared("more-buckets", loser.scores.buckets, chosen.scores.buckets);
  if (worstFanout(loser) !== worstFanout(chosen))
    return compared("wider-fan-out", worstFanout(loser), worstFanout(chosen));
  if (loser.nodes !== chosen.nodes) return compared("more-nodes", loser.nodes, chosen.nodes);
  return { code: "later-in-order", missed: [] };
}

/** A judged design missing targets today: which, and whether more nodes would fix them. */
function targetsMissed(loser: JudgedCandidate): LossFacts {
  const { failures } = loser;
  const missed = targetsOf(failures);
  const nodesNeeded = loser.scores.nodesNeeded;
  const capacityOnly = missed.every((target) => CAPACITY_TARGETS.has(target));
  if (capacityOnly && nodesNeeded === null) return { code: "more-nodes-do-not-help", missed, failures };
  if (capacityOnly && nodesNeeded !== null && nodesNeeded > loser.nodes)
    return { code: "needs-more-nodes", missed, failures, nodesNeeded };
  return { code: "misses-targets", missed, failures };
}

/** Why a design loses, in one sentence for the reports, from its facts (loss-reason.ts). */
import { roughRate } from "./headroom.js";
import type { LossFacts } from "./loss-reason.js";
import { targetFailuresText } from "./target-failure-text.js";

export function lossReasonText(facts: LossFacts): string {
  switch (facts.code) {
    case "not-simulated":
      return `could not be simulated: ${facts.error}`;
    case "misses-targets":
      return targetFailuresText(facts.failures);
    case "more-nodes-do-not-help":
      return joined(
        targetFailuresText(facts.failures),
        "more nodes would not fix it (the load sits on a key range)",
      );
    case "needs-more-nodes":
      return joined(
        targetFailuresText(facts.failures),
        `would need ${facts.nodesNeeded} nodes at today's rate`,
      );
    case "misses-at-growth":
      return `meets the targets today but not at the stated growth, ${facts.growth}× (${roughRate(facts.writesPerS)} writes/s): ${targetFailuresText(facts.failures)}${facts.breaksAtWritesPerS === null ? "" : `; it breaks at about ${roughRate(facts.breaksAtWritesPerS)} writes/s`}`;
    case "meets-targets":
      return "meets the targets";
    case "more-client-cores":
      return `meets the targets but its reads need ${Math.round(facts.loser)} application cores on the client against ${Math.round(facts.chosen)}`;
    case "bigger-change":
      return `meets the targets but is a bigger change (complexity ${facts.loser} vs ${facts.chosen})`;
    case "more-buckets":
      return `meets the targets with more salt buckets (${facts.loser} vs ${facts.chosen}): more read fan-out risk and key bytes for no gain`;
    case "wider-fan-out":
      return `meets the targets but reads fan out wider (×${facts.loser} vs ×${facts.chosen})`;
    case "more-nodes":
      return `meets the targets on ${facts.loser} nodes; the recommendation needs ${facts.chosen}`;
    case "later-in-order":
      return "meets the targets but costs more or ties later in the simplicity order";
  }
}

/** The missed targets, then what more nodes would do (an empty part is left out). */
const joined = (...parts: string[]) => parts.filter(Boolean).join("; ");

/**
 * The advice as one JSON object (`keyspread advise --json`): `recommended` holds the chosen
 * design's schema and scores; every candidate follows with its scores, reads, headroom and why it
 * lost. Time series and per-tablet load are left out (the heatmaps show them).
 */
import { type Advice, candidateLabel } from "../judge/advise.js";
import { type EvaluatedCandidate, meetsTargets, meetsTargetsWithHeadroom } from "../judge/recommend.js";
import { targetFailureText } from "../judge/target-failure-text.js";
import { beyondTheKeyText } from "./beyond-the-key-text.js";
import { realSchema } from "./schema-file.js";
import { verdictHeadline } from "./verdict-headline.js";

function candidateJson(advice: Advice, evaluated: EvaluatedCandidate) {
  const judged = evaluated.kind === "judged" ? evaluated : undefined;
  const headroom = judged?.headroom;
  return {
    name: evaluated.candidate.name,
    description: evaluated.candidate.description,
    changes: evaluated.candidate.changes,
    complexity: evaluated.candidate.complexity,
    nodes: evaluated.nodes,
    schema: realSchema(advice, evaluated),
    ...(evaluated.candidate.design.batch === undefined ? {} : { batchS: evaluated.candidate.design.batch }),
    ...(judged ? { scores: judged.scores, sizing: judged.sizing } : {}),
    ...(judged?.cost ? { costPerMonth: judged.cost } : {}),
    ...(judged?.autoscaled ? { autoscaled: judged.autoscaled } : {}),
    reads: evaluated.reads,
    meetsTargets: meetsTargets(evaluated),
    ...(headroom
      ? {
          headroom: {
            growth: headroom.growth,
            writesPerS: headroom.writesPerS,
            meetsTargets: meetsTargetsWithHeadroom(evaluated),
            hottestCpu: headroom.scores.hottestCpu,
            averageCpu: headroom.scores.averageCpu,
            failures: headroom.failures.map(targetFailureText),
            breaksAt: headroom.breaksAt,
          },
        }
      : {}),
    // A design that could not be simulated missed no target: it was not measured (its error says why).
    failures: judged ? judged.failures.map(targetFailureText) : [],
    ...(evaluated.kind === "failed" ? { error: evaluated.error } : {}),
  };
}

export function adviceToJson(advice: Advice): string {
  const reasons = new Map(advice.losers.map((loser) => [loser.name, loser.reason]));
  return JSON.stringify(
    {
      scenario: advice.scenario,
      headline: verdictHeadline(advice),
      ...(advice.source === undefined ? {} : { source: advice.source }),
      nodes: advice.nodes,
      storage: advice.storage,
      writesPerS: advice.writesPerS,
      growth: advice.growth,
      retention: advice.retention ?? null,
      simulated: { durationS: advice.durationS, mode: advice.mode },
      targets: advice.targets,
      recommended: advice.recommended
        ? { ...candidateJson(advice, advice.recommended), needsMoreNodes: advice.needsMoreNodes }
        : null,
      cheapest: advice.cheapest ? candidateLabel(advice.cheapest, advice.nodes) : null,
      storageOptions: advice.storageOptions ?? null,
      analytical: advice.analytical ?? null,
      pricesUsed: advice.pricesUsed,
      decision: advice.decision,
      // The kind and its sentence (the measured fields are in the scores and sizing above).
      beyondTheKey: advice.beyondTheKey.map((note) => ({ kind: note.kind, text: beyondTheKeyText(note) })),
      multiCluster: advice.multiCluster ?? null,
      clusterOptions: advice.clusterOptions ?? null,
      notSimulated: advice.notSimulated,
      candidates: advice.candidates.map((evaluated) => {
        const label = candidateLabel(evaluated, advice.nodes);
        return {
          ...candidateJson(advice, evaluated),
          ...(reasons.has(label) ? { lostBecause: reasons.get(label) } : {}),
        };
      }),
    },
    (_key, value) => (typeof value === "number" && !Number.isFinite(value) ? null : value),
    2,
  );
}

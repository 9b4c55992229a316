/**
 * The advice as one JSON object (`keyspread advise --json`): `recommended` holds the chosen
 * design's schema and scores; every candidate follows with its scores and why it lost. Time
 * series and per-tablet load are left out (the heatmaps show them).
 */
import type { Advice } from "./advise.js";
import type { Evaluated } from "./recommend.js";

function candidateJson(evaluated: Evaluated) {
  return {
    name: evaluated.candidate.name,
    description: evaluated.candidate.description,
    changes: evaluated.candidate.changes,
    complexity: evaluated.candidate.complexity,
    nodes: evaluated.nodes,
    schema: evaluated.candidate.design.schema,
    ...(evaluated.candidate.design.batch === undefined ? {} : { batchS: evaluated.candidate.design.batch }),
    ...(evaluated.scores ? { scores: evaluated.scores } : {}),
    meetsTargets:
      evaluated.error === undefined && evaluated.scores !== undefined && evaluated.failures.length === 0,
    failures: evaluated.failures.map((failure) => failure.text),
    ...(evaluated.error === undefined ? {} : { error: evaluated.error }),
  };
}

export function adviceToJson(advice: Advice): string {
  const reasons = new Map(advice.losers.map((loser) => [loser.name, loser.reason]));
  return JSON.stringify(
    {
      scenario: advice.scenario,
      ...(advice.source === undefined ? {} : { source: advice.source }),
      nodes: advice.nodes,
      storage: advice.storage,
      simulated: { durationS: advice.durationS, mode: advice.mode },
      targets: advice.targets,
      recommended: advice.recommended
        ? { ...candidateJson(advice.recommended), needsMoreNodes: advice.needsMoreNodes }
        : null,
      decision: advice.decision,
      beyondTheKey: advice.beyondTheKey,
      candidates: advice.candidates.map((evaluated) => ({
        ...candidateJson(evaluated),
        ...(reasons.has(evaluated.candidate.name)
          ? { lostBecause: reasons.get(evaluated.candidate.name) }
          : {}),
      })),
    },
    (_key, value) => (typeof value === "number" && !Number.isFinite(value) ? null : value),
    2,
  );
}

import type { EvaluatedCandidate, JudgedCandidate } from "./recommend.js";

/** The candidate as judged, for tests that expect the simulator to have replayed it; throws with its error otherwise. */
export function judged(evaluated: EvaluatedCandidate | undefined): JudgedCandidate {
  if (evaluated === undefined) throw new Error("no such candidate");
  if (evaluated.kind === "failed")
    throw new Error(`${evaluated.candidate.name} could not be simulated: ${evaluated.error}`);
  return evaluated;
}

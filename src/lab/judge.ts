/**
 * The lab's judgement of a scenario's designs: the advisor's rules applied to the designs as
 * written (so `lab` and `advise` agree), and every simulated design run again at the pessimistic
 * and optimistic ends of the model's constants, so each figure comes with the range the model's
 * uncertainty spans and a verdict that flips between the ends is said. Pure, like the simulator.
 */
import { type Advice, adviseScenario, simulateCandidateAt } from "../advise/advise.js";
import type { EvaluatedCandidate } from "../advise/recommend.js";
import type { Scenario } from "../sim/scenario.js";
import { compareEnds, type DesignSensitivity } from "../sim/sensitivity.js";
import type { SimulationMode } from "../sim/simulate.js";

export interface LabVerdict {
  advice: Advice;
  /** Per simulated candidate, its figures at the model's ends (absent without `sensitivity`). */
  ends: Map<EvaluatedCandidate, DesignSensitivity>;
}

export interface JudgeScenarioProgress {
  /** `designs`: the advisor's runs (more may follow: headroom, more nodes); `model ends`: the reruns. */
  phase: "designs" | "model ends";
  name: string;
  index: number;
  count: number;
  doneS: number;
  totalS: number;
}

export interface JudgeScenarioOptions {
  durationS?: number;
  mode?: SimulationMode;
  /** Rerun every simulated design at the model's pessimistic and optimistic ends; default true. */
  sensitivity?: boolean;
  onProgress?: (progress: JudgeScenarioProgress) => void;
}

export function judgeScenario(scenario: Scenario, options: JudgeScenarioOptions = {}): LabVerdict {
  const advice = adviseScenario(scenario, {
    candidates: "scenario",
    exhaustive: true,
    ...(options.durationS === undefined ? {} : { durationS: options.durationS }),
    ...(options.mode === undefined ? {} : { mode: options.mode }),
    onProgress: (progress) =>
      options.onProgress?.({ ...progress, phase: "designs", name: progress.candidate }),
  });
  const ends = new Map<EvaluatedCandidate, DesignSensitivity>();
  if (options.sensitivity === false) return { advice, ends };
  const simulated = advice.candidates.filter((each) => each.result !== undefined);
  for (const [index, evaluated] of simulated.entries()) {
    const at = (end: "pessimistic" | "optimistic", pass: number) =>
      simulateCandidateAt(scenario, advice, evaluated, end, (progress) =>
        options.onProgress?.({
          phase: "model ends",
          name: `${evaluated.candidate.name} (${end})`,
          index: 2 * index + pass,
          count: 2 * simulated.length,
          doneS: progress.doneS,
          totalS: progress.totalS,
        }),
      );
    ends.set(evaluated, compareEnds(evaluated.result!, at("pessimistic", 0), at("optimistic", 1)));
  }
  return { advice, ends };
}

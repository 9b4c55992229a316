/**
 * The one judgement of a scenario that `lab` and `advise --scenario` both print: the advisor's rules
 * applied to the designs as written and to the candidates the advisor generates for the first
 * (so both commands recommend the same design on the same nodes), and the listed designs and the
 * recommendation run again at the pessimistic and optimistic ends of the model's constants, so each figure comes with the range the model's
 * uncertainty spans and a verdict that flips between the ends is said. When the scenario states
 * what the running cluster shows (`observed`), the model is first fitted to it (sim/results/calibrate.ts):
 * the designs are judged under the fitted constants, and the ranges are those of the constants that
 * still agree with the observation. Pure, like the simulator.
 */
import {
  type Advice,
  type AdviseOptions,
  adviseScenario,
  simulateCandidateAt,
} from "../advise/judge/advise.js";
import type { EvaluatedCandidate, JudgedCandidate } from "../advise/judge/recommend.js";
import { type Calibration, calibrate } from "../sim/results/calibrate.js";
import { compareEnds, type DesignSensitivity } from "../sim/results/sensitivity.js";
import type { SimulationMode, simulateScenario } from "../sim/results/simulate.js";
import type { Scenario } from "../sim/scenario/scenario.js";

export interface LabVerdict {
  advice: Advice;
  /** Per simulated candidate, its figures at the model's ends, or at the calibrated range's (absent without `sensitivity`). */
  ends: Map<EvaluatedCandidate, DesignSensitivity>;
  /** The fit to the observed cluster, when the scenario states one. */
  calibration?: Calibration;
  /** The designs the lab shows one by one (reruns, heatmaps, results.json): the listed ones, the recommendation, the cheapest. */
  shown: JudgedCandidate[];
}

export interface JudgeScenarioProgress {
  /** `calibration`: the fit to the observed cluster; `designs`: the advisor's runs (more may follow: growth, more nodes); `model ends`: the reruns. */
  phase: "calibration" | "designs" | "model ends";
  name: string;
  index: number;
  count: number;
  doneS: number;
  totalS: number;
}

/** The advisor's knobs a user may set on either command (the same values give the same verdict). */
type AdvisorChoices = Pick<AdviseOptions, "baseline" | "nodes" | "buckets" | "batching">;

export interface JudgeScenarioOptions extends AdvisorChoices {
  durationS?: number;
  mode?: SimulationMode;
  /** Rerun the listed designs and the recommendation at the model's pessimistic and optimistic ends; default true. */
  sensitivity?: boolean;
  /** Multiple of today's workload to plan for; default the scenario's `growth`, else 1. */
  growth?: number;
  onProgress?: (progress: JudgeScenarioProgress) => void;
  /** The simulator every run goes through; default simulateScenario (the studio passes a SimulationMemo's). */
  simulate?: typeof simulateScenario;
}

export function judgeScenario(scenario: Scenario, options: JudgeScenarioOptions = {}): LabVerdict {
  const run = {
    ...(options.durationS === undefined ? {} : { durationS: options.durationS }),
    ...(options.mode === undefined ? {} : { mode: options.mode }),
  };
  const simulate = options.simulate === undefined ? {} : { simulate: options.simulate };
  if (scenario.observed)
    options.onProgress?.({ phase: "calibration", name: "fit", index: 0, count: 1, doneS: 0, totalS: 1 });
  const calibration = scenario.observed ? calibrate(scenario, { ...run, ...simulate }) : undefined;
  const fit = calibration?.fit.status === "fitted" ? calibration.fit : undefined;
  const judged = fit?.scenario ?? scenario;
  const { baseline, nodes, buckets, batching } = options;
  const advice = adviseScenario(judged, {
    candidates: "all",
    exhaustive: true,
    ...run,
    ...(options.growth === undefined ? {} : { growth: options.growth }),
    ...(baseline === undefined ? {} : { baseline }),
    ...(nodes === undefined ? {} : { nodes }),
    ...(buckets === undefined ? {} : { buckets }),
    ...(batching === undefined ? {} : { batching }),
    ...simulate,
    onProgress: (progress) =>
      options.onProgress?.({ ...progress, phase: "designs", name: progress.candidate }),
  });
  const ends = new Map<EvaluatedCandidate, DesignSensitivity>();
  const listed = new Set(scenario.designs.map((design) => design.name));
  const shown = advice.candidates.filter(
    (each): each is JudgedCandidate =>
      each.kind === "judged" &&
      (listed.has(each.candidate.name) || each === advice.recommended || each === advice.cheapest),
  );
  const withCalibration = { shown, ...(calibration ? { calibration } : {}) };
  if (options.sensitivity === false) return { advice, ends, ...withCalibration };
  const simulated = shown;
  for (const [index, evaluated] of simulated.entries()) {
    // Fitted: the ends of the range that agrees with the observation; else the model's own ends.
    const at = (end: "pessimistic" | "optimistic", pass: number) =>
      simulateCandidateAt(
        fit ? fit.rangeScenarios[end] : scenario,
        advice,
        evaluated,
        fit ? "default" : end,
        (progress) =>
          options.onProgress?.({
            phase: "model ends",
            name: `${evaluated.candidate.name} (${end})`,
            index: 2 * index + pass,
            count: 2 * simulated.length,
            doneS: progress.doneS,
            totalS: progress.totalS,
          }),
        options.simulate,
      );
    ends.set(evaluated, compareEnds(evaluated.result, at("pessimistic", 0), at("optimistic", 1)));
  }
  return { advice, ends, ...withCalibration };
}

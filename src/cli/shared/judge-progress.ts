/**
 * The one judgement `lab` and `advise --scenario` print (lab/judge.ts), with a progress bar per
 * phase on a TTY.
 */
import {
  type JudgeScenarioOptions,
  type JudgeScenarioProgress,
  judgeScenario,
  type LabVerdict,
} from "../../lab/judge.js";
import type { Scenario } from "../../sim/scenario/scenario.js";
import { simulationQueueBar } from "./progress.js";

export function judgeWithProgress(
  scenario: Scenario,
  options: Omit<JudgeScenarioOptions, "onProgress">,
): LabVerdict {
  // One bar per phase, the first stopped when the second starts (two live bars garble a terminal).
  let phase: JudgeScenarioProgress["phase"] | undefined;
  let bar: ReturnType<typeof simulationQueueBar> | undefined;
  try {
    return judgeScenario(scenario, {
      ...options,
      onProgress: (progress: JudgeScenarioProgress) => {
        if (progress.phase !== phase || bar === undefined) {
          bar?.stop();
          phase = progress.phase;
          bar = simulationQueueBar(`lab: ${phase}`);
        }
        bar.update(progress);
      },
    });
  } finally {
    bar?.stop();
  }
}

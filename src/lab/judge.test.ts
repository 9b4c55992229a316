import { describe, expect, it } from "vitest";
import { judged } from "../advise/judge/judged.fixture.js";
import type { SensitivitySpan } from "../sim/results/sensitivity.js";
import { smallFleet } from "../sim/scenario/small-fleet.fixture.js";
import { judgeScenario } from "./judge.js";

const fleet = smallFleet({ retention: "7d" });

const width = (span: SensitivitySpan) => span.pessimistic! - span.optimistic!;

describe("judgeScenario", () => {
  it("judges under the model fitted to the observed cluster, with a range narrower than the model's", () => {
    const unfitted = judgeScenario(fleet);
    const current = unfitted.advice.candidates[0]!;
    const observedCpu = judged(current).scores.averageCpu * 1.1;
    const fitted = judgeScenario({ ...fleet, observed: { nodes: 4, averageCpu: observedCpu } });
    expect(unfitted.calibration).toBeUndefined();
    expect(fitted.calibration!.fit.status).toBe("fitted");
    const fittedCurrent = fitted.advice.candidates[0]!;
    // The current key reproduces the observation, and every design's range shrinks to the constants that agree.
    expect(Math.abs(judged(fittedCurrent).scores.averageCpu - observedCpu)).toBeLessThan(0.03);
    // The designs the lab reruns at the ends: the listed ones, the recommendation, the cheapest.
    expect(fitted.shown.length).toBeGreaterThanOrEqual(fleet.designs.length);
    for (const each of fitted.shown) {
      const same = unfitted.shown.find((other) => other.candidate.name === each.candidate.name);
      if (!same) continue;
      const before = unfitted.ends.get(same)!;
      const after = fitted.ends.get(each)!;
      expect(width(after.averageNodeCpu)).toBeLessThan(width(before.averageNodeCpu));
    }
    // Every design is sized and priced under the fit.
    for (const each of fitted.advice.candidates)
      expect(judged(each).sizing.today.storage).toBeGreaterThanOrEqual(1);
  }, 180_000);
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MODEL_CONSTANTS } from "../cluster/model-constants.js";
import { type Scenario, validateScenario } from "../scenario/scenario.js";
import { smallFleet } from "../scenario/small-fleet.fixture.js";
import { calibrate, OBSERVATION_TOLERANCE, observedScenario, scenarioAt } from "./calibrate.js";
import { simulateScenario } from "./simulate.js";

const fleet = smallFleet();

/** What the model itself shows for the current key with its constants at `t` on the path. */
function observationAt(t: number): Scenario {
  const observed = { nodes: fleet.cluster.nodes, averageCpu: 1 };
  const run = simulateScenario(scenarioAt(observedScenario(fleet, observed), t)).designs[0]!;
  return { ...fleet, observed: { ...observed, averageCpu: run.summary.steadyState.averageNodeCpu } };
}

describe("calibrate", () => {
  it("recovers the constants an observation was produced at, and the verdicts under them", () => {
    fc.assert(
      fc.property(fc.constantFrom(-0.7, -0.2, 0.3, 0.8), (known) => {
        const calibration = calibrate(observationAt(known));
        const fit = calibration.fit;
        expect(fit.status).toBe("fitted");
        if (fit.status !== "fitted") return;
        // The observation is reproduced, and the known constants lie in the range that agrees with it.
        expect(Math.abs(fit.figures.averageCpu - calibration.observed.averageCpu!)).toBeLessThanOrEqual(
          OBSERVATION_TOLERANCE / 5,
        );
        expect(fit.range.low).toBeLessThanOrEqual(known);
        expect(fit.range.high).toBeGreaterThanOrEqual(known);
        expect(fit.t).toBeCloseTo(known, 1);
        for (const moved of fit.moved) {
          const constant = MODEL_CONSTANTS[moved.name];
          expect(moved.to).toBeGreaterThanOrEqual(Math.min(constant.low, constant.high));
          expect(moved.to).toBeLessThanOrEqual(Math.max(constant.low, constant.high));
        }
        // Every design meets or misses Google's guidance alike under the fitted and the known constants.
        const verdicts = (scenario: Scenario) =>
          simulateScenario(scenario).designs.map((design) => [design.design, design.summary.guidance.meets]);
        expect(verdicts(fit.scenario)).toEqual(verdicts(scenarioAt(fleet, known)));
      }),
      { numRuns: 3 },
    );
  }, 120_000);

  it("says when no constants within their ranges reproduce the observation, and on which side it lies", () => {
    const overloaded = { ...fleet, observed: { nodes: 4, averageCpu: 4 } };
    const calibration = calibrate(overloaded);
    expect(calibration.fit).toEqual({ status: "unreproduced", side: "above" });
    expect(calibration.atEnds.pessimistic.averageCpu).toBeLessThan(4 - OBSERVATION_TOLERANCE);
    const idle = calibrate({ ...fleet, observed: { nodes: 4, averageCpu: 0.01 } });
    expect(idle.fit).toEqual({ status: "unreproduced", side: "below" });
  }, 60_000);

  it("fits nothing when the observed hottest node lies beyond what any constants make of the workload, though the average fits", () => {
    const spread = simulateScenario(scenarioAt(observedScenario(fleet, { nodes: 4, averageCpu: 1 }), 0))
      .designs[0]!;
    const { averageNodeCpu } = spread.summary.steadyState;
    const hotRow = calibrate({ ...fleet, observed: { nodes: 4, averageCpu: averageNodeCpu, hottestCpu: 4 } });
    expect(hotRow.metric).toBe("hottestCpu");
    expect(hotRow.fit).toEqual({ status: "unreproduced", side: "above" });
    expect(hotRow.atEnds.pessimistic.hottestCpu).toBeLessThan(4 - OBSERVATION_TOLERANCE);
  }, 60_000);

  it("fits the compression to the bytes observed per node, and says when no compression in its range explains them", () => {
    const kept = validateScenario({ ...observationAt(0), workload: { ...fleet.workload, retention: "1d" } });
    const keptPerNode = (30000 * 256 * 86400) / 4;
    const fit = calibrate({
      ...kept,
      observed: { ...kept.observed!, storageBytesPerNode: keptPerNode / 1.5 },
    });
    expect(fit.storage).toMatchObject({ compression: 1.5, withinRange: true });
    expect(fit.fit.status === "fitted" && fit.fit.scenario.workload.compression).toBe(1.5);
    const bigger = calibrate({
      ...kept,
      observed: { ...kept.observed!, storageBytesPerNode: keptPerNode * 2 },
    });
    expect(bigger.storage).toMatchObject({ compression: 0.5, withinRange: false });
    expect(bigger.fit.status === "fitted" && bigger.fit.scenario.workload.compression).toBeUndefined();
  }, 120_000);

  it("leaves a constant the scenario sets where the user put it", () => {
    const fixed = { ...observationAt(0.5), tablets: { ...fleet.tablets, mergeLoadShare: 0.3 } };
    const fit = calibrate(fixed).fit;
    expect(fit.status).toBe("fitted");
    if (fit.status === "fitted") {
      expect(fit.moved.map((each) => each.name)).not.toContain("mergeLoadShare");
      expect(fit.moved.map((each) => each.name)).toContain("fixedCostShare");
      expect(fit.scenario.tablets.mergeLoadShare).toBe(0.3);
    }
  }, 60_000);
});

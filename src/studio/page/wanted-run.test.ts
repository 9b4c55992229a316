import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SimulationMemo } from "../../lab/simulation-memo.js";
import type { simulateScenario } from "../../sim/results/simulate.js";
import { SimulationCancelled } from "../../sim/results/simulation-cancelled.js";
import type { Scenario } from "../../sim/scenario/scenario.js";
import { LAB_RUN } from "../lab-out.fixture.js";
import { runStudio, type StudioRequest } from "../studio-run.js";
import { WantedRun } from "./wanted-run.js";

/** For a stand-in simulator that never reads its scenario. */
const UNREAD_SCENARIO = {} as Scenario;

const REQUEST: StudioRequest = {
  yaml: readFileSync(new URL("../../../examples/timestamp-first.yaml", import.meta.url), "utf8"),
  controls: {},
  ...LAB_RUN,
};

describe("WantedRun: the worker stops a run the page no longer wants, and keeps what it finished", () => {
  it("stops before simulating once the page wants another run", () => {
    const wanted = new WantedRun();
    const memo = new SimulationMemo();
    wanted.want(2);
    const simulate = wanted.simulateFor(1, memo.simulate);
    expect(() => runStudio(REQUEST, { simulate })).toThrow(SimulationCancelled);
    expect(memo.stats).toEqual({ hits: 0, runs: 0 });
  });

  it("stops during a simulation, at the next step, and the run it stopped returns nothing", () => {
    const wanted = new WantedRun();
    wanted.want(1);
    let steps = 0;
    const inner = ((_scenario, options = {}) => {
      for (let step = 0; step < 10; step++) {
        steps++;
        if (step === 3) wanted.want(2);
        options.onProgress?.({ design: "d", designIndex: 0, designCount: 1, doneS: step, totalS: 10 });
      }
      throw new Error("a stopped simulation must not reach its end");
    }) as typeof simulateScenario;
    const simulate = wanted.simulateFor(1, inner);
    expect(() => simulate(UNREAD_SCENARIO)).toThrow(SimulationCancelled);
    expect(steps).toBe(4);
  });

  it("lets the judgement through (not a failed design), and the next run takes the finished runs from the memo", () => {
    const wanted = new WantedRun();
    const memo = new SimulationMemo();
    wanted.want(1);
    let finished = 0;
    const counting: typeof simulateScenario = (scenario, options) => {
      const result = memo.simulate(scenario, options);
      if (++finished === 3) wanted.want(2);
      return result;
    };
    expect(() => runStudio(REQUEST, { simulate: wanted.simulateFor(1, counting) })).toThrow(
      SimulationCancelled,
    );
    expect(memo.stats).toEqual({ hits: 0, runs: 3 });

    const warm = runStudio(REQUEST, { simulate: wanted.simulateFor(2, memo.simulate) });
    expect(memo.stats.hits).toBe(3);
    const cold = runStudio(REQUEST);
    if (warm.kind !== "judged" || cold.kind !== "judged") throw new Error("timestamp-first is valid");
    expect(warm.files["advice.json"]).toBe(cold.files["advice.json"]);
    expect(warm.files["results.json"]).toBe(cold.files["results.json"]);
  }, 120_000);
});

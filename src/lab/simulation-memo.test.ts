import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { simulateScenario } from "../sim/results/simulate.js";
import { parseScenario, type Scenario } from "../sim/scenario/scenario.js";
import { SimulationMemo } from "./simulation-memo.js";

const scenario = parseScenario(
  readFileSync(new URL("../../examples/sequential-ids.yaml", import.meta.url), "utf8"),
);
/** The scenario with only its design `name`, as the advisor hands one to the simulator. */
const only = (name: string): Scenario => ({
  ...scenario,
  designs: scenario.designs.filter((design) => design.name === name),
});
const RUN = { durationS: 30 } as const;

describe("SimulationMemo", () => {
  it("answers a run it has seen from the memo, and that answer is the simulator's", () => {
    const memo = new SimulationMemo();
    const first = memo.simulate(only("as-is"), { ...RUN, onProgress: () => {} });
    expect(memo.simulate(only("as-is"), RUN)).toBe(first);
    expect(memo.stats).toEqual({ hits: 1, runs: 1 });
    expect(first).toEqual(simulateScenario(only("as-is"), RUN));
  });

  it("simulates again what any input the simulator reads changes: the design, the cluster, the options", () => {
    const memo = new SimulationMemo();
    memo.simulate(only("as-is"), RUN);
    const salted = only("salt-16-by-id");
    memo.simulate(salted, RUN);
    memo.simulate({ ...salted, cluster: { ...salted.cluster, nodes: salted.cluster.nodes + 1 } }, RUN);
    memo.simulate(salted, { ...RUN, modelEnd: "pessimistic" });
    expect(memo.stats).toEqual({ hits: 0, runs: 4 });
  });

  it("forgets the runs used longest ago beyond its capacity", () => {
    const memo = new SimulationMemo(1);
    memo.simulate(only("as-is"), RUN);
    memo.simulate(only("salt-16-by-id"), RUN);
    memo.simulate(only("as-is"), RUN);
    expect(memo.stats).toEqual({ hits: 0, runs: 3 });
  });
});

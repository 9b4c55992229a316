/**
 * The run the page's worker makes (runStudio, with the worker's memo) in Node: the controls apply
 * as the exported YAML states them, and a memo warm from another run gives the files a cold run
 * gives, byte for byte. That the page's files are those the built bin's `keyspread lab --out`
 * writes, for every bundled scenario, is checked in Chromium (studio.browser.test.ts).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SimulationMemo } from "../lab/simulation-memo.js";
import { parseScenario } from "../sim/scenario/scenario.js";
import { LAB_RUN } from "./lab-out.fixture.js";
import { runStudio, type StudioJudged } from "./studio-run.js";

const EXAMPLES = new URL("../../examples/", import.meta.url);

const judged = (yaml: string, controls = {}, memo = new SimulationMemo()): StudioJudged => {
  const outcome = runStudio({ yaml, controls, ...LAB_RUN }, { simulate: memo.simulate });
  if (outcome.kind !== "judged") throw new Error(JSON.stringify(outcome.problems));
  return outcome;
};

describe("the studio's run in Node", () => {
  it("applies the controls as the exported YAML states them, and a memo warm from another run changes nothing", () => {
    const yaml = readFileSync(new URL("timestamp-first.yaml", EXAMPLES), "utf8");
    const memo = new SimulationMemo();
    judged(yaml, {}, memo);
    const warm = judged(yaml, { nodes: 9, storage: "hdd" }, memo);
    const exported = parseScenario(warm.files["scenario.yaml"] ?? "");
    expect(exported.cluster).toMatchObject({ nodes: 9, storage: "hdd" });
    const cold = judged(warm.files["scenario.yaml"] ?? "");
    expect(warm.files["advice.json"]).toBe(cold.files["advice.json"]);
    expect(warm.files["results.json"]).toBe(cold.files["results.json"]);
  }, 240_000);
});

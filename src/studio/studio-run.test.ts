/**
 * The studio's numbers are the CLI's: for every bundled scenario, the run the page's worker makes
 * (runStudio, with the worker's memo) gives, byte for byte, the files the built bin writes with
 * `keyspread lab --out` on the same options. Short runs (one simulated minute, no model-end reruns)
 * keep it affordable, and the bin runs beside the Node run. The fleet, the slowest by far, is
 * compared in Chromium (studio.browser.test.ts: the page's files against the bin's). The reports in
 * HTML embed the heatmap script from the functions' source text, which differs in whitespace
 * between the built bin and a transformed test run, so the comparison is of the JSON and YAML files.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SimulationMemo } from "../lab/simulation-memo.js";
import { parseScenario } from "../sim/scenario/scenario.js";
import { COMPARED_FILES, LAB_RUN, labOut } from "./lab-out.fixture.js";
import { runStudio, type StudioJudged } from "./studio-run.js";

const EXAMPLES = new URL("../../examples/", import.meta.url);
const BUNDLED = readdirSync(EXAMPLES).filter(
  (name) => name.endsWith(".yaml") && name !== "fleet-hotspot.yaml",
);

const judged = (yaml: string, controls = {}, memo = new SimulationMemo()): StudioJudged => {
  const outcome = runStudio({ yaml, controls, ...LAB_RUN }, { simulate: memo.simulate });
  if (outcome.kind !== "judged") throw new Error(JSON.stringify(outcome.problems));
  return outcome;
};

describe("the studio's verdict and numbers are the lab's", () => {
  it.each(BUNDLED)(
    "%s: the files `lab --out` writes, byte for byte",
    async (name) => {
      const file = new URL(name, EXAMPLES).pathname;
      const lab = labOut(file);
      const studio = judged(readFileSync(file, "utf8"));
      const written = await lab;
      expect(studio.files["scenario.yaml"]).toBe(readFileSync(file, "utf8"));
      const compared = COMPARED_FILES.filter((each) => each in written || each in studio.files);
      expect(compared).toContain("advice.json");
      for (const each of compared) expect(studio.files[each], each).toBe(written[each]);
    },
    240_000,
  );

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

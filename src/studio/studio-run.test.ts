/**
 * The studio's numbers are the CLI's: for every bundled scenario, the run the page's worker makes
 * (runStudio) gives the advice.json and results.json that `keyspread lab` makes from its own
 * judgement; and for one scenario, byte for byte the files the built bin writes with `lab --out`.
 * Short runs (one simulated minute, no model-end reruns) keep it affordable: the same options go to
 * both sides, so the comparison holds at any length. The fleet, the slowest by far, is compared in
 * Chromium (studio.browser.test.ts: the page's files against this run in Node); its lab files are
 * lab.test.ts's. The reports in HTML embed the heatmap script from the functions' source text,
 * which differs in whitespace between the built bin and a transformed test run, so the byte-for-byte
 * comparison is of the JSON and YAML files.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { adviceToJson } from "../advise/report/advice-json.js";
import { judgeScenario } from "../lab/judge.js";
import { labResultsJson } from "../lab/lab-files.js";
import { parseScenario } from "../sim/scenario/scenario.js";
import { runStudio, type StudioJudged } from "./studio-run.js";

const EXAMPLES = new URL("../../examples/", import.meta.url);
const BUNDLED = readdirSync(EXAMPLES).filter(
  (name) => name.endsWith(".yaml") && name !== "fleet-hotspot.yaml",
);
const RUN = { durationS: 60, sensitivity: false } as const;

const judged = (yaml: string, controls = {}): StudioJudged => {
  const outcome = runStudio({ yaml, controls, ...RUN });
  if (outcome.kind !== "judged") throw new Error(JSON.stringify(outcome.problems));
  return outcome;
};

describe("the studio's verdict and numbers are the lab's", () => {
  it.each(BUNDLED)(
    "%s: advice.json and results.json as lab makes them",
    (name) => {
      const yaml = readFileSync(new URL(name, EXAMPLES), "utf8");
      const studio = judged(yaml);
      const lab = judgeScenario(parseScenario(yaml), RUN);
      expect(studio.files["advice.json"]).toBe(`${adviceToJson(lab.advice)}\n`);
      expect(studio.files["results.json"]).toBe(labResultsJson(lab));
      expect(studio.files["scenario.yaml"]).toBe(yaml);
      expect(studio.headline.recommended?.design).toBe(lab.advice.recommended?.candidate.name);
    },
    240_000,
  );

  it("equals the files the built `lab --out` writes, byte for byte", () => {
    const out = mkdtempSync(join(tmpdir(), "keyspread-studio-"));
    try {
      const file = new URL("timestamp-first.yaml", EXAMPLES);
      const run = spawnSync(
        "node",
        [
          "dist/cli/main.js",
          "lab",
          file.pathname,
          "--duration",
          "1m",
          "--no-sensitivity",
          "--rows",
          "100",
          "--out",
          out,
        ],
        { encoding: "utf8" },
      );
      expect(run.status, run.stderr).toBe(0);
      const studio = judged(readFileSync(file, "utf8"));
      for (const name of ["advice.json", "results.json", "recommended-schema.yaml"])
        expect(studio.files[name], name).toBe(readFileSync(join(out, name), "utf8"));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 240_000);

  it("applies the controls as the exported YAML states them", () => {
    const yaml = readFileSync(new URL("timestamp-first.yaml", EXAMPLES), "utf8");
    const studio = judged(yaml, { nodes: 9, storage: "hdd" });
    const exported = parseScenario(studio.files["scenario.yaml"]!);
    expect(exported.cluster.nodes).toBe(9);
    expect(exported.cluster.storage).toBe("hdd");
    const lab = judgeScenario(exported, RUN);
    expect(studio.files["results.json"]).toBe(labResultsJson(lab));
  }, 240_000);
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseScenario } from "../sim/scenario/scenario.js";
import { lineOfPath, scenarioProblems } from "./scenario-problems.js";

const FLEET = readFileSync(new URL("../../examples/fleet-hotspot.yaml", import.meta.url), "utf8");
const lineOf = (text: string, needle: string) =>
  text.split("\n").findIndex((line) => line.includes(needle)) + 1;

/** The CLI's own error for `text`. */
function cliError(text: string): string {
  try {
    parseScenario(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected the scenario to be invalid");
}

describe("scenario problems at their path", () => {
  it("finds keys, items and keys inside items in the fleet's YAML", () => {
    expect(lineOfPath(FLEET, ["cluster", "nodes"])).toBe(lineOf(FLEET, "  nodes: 12"));
    expect(lineOfPath(FLEET, ["workload", "groups", "1", "writesPerS"])).toBe(
      lineOf(FLEET, "writesPerS: 68400"),
    );
    expect(lineOfPath(FLEET, ["workload", "reads", "0", "limit"])).toBe(lineOf(FLEET, "limit: 100"));
    expect(lineOfPath(FLEET, ["replication", "clusters", "1", "region"])).toBe(
      lineOf(FLEET, "us-central1 }"),
    );
    expect(lineOfPath(FLEET, ["designs", "1", "nodes"])).toBe(lineOf(FLEET, "nodes: 24"));
  });

  it("splits the CLI's validation error into its messages, each at the line of its path", () => {
    const broken = FLEET.replace("  nodes: 12\n  storage: ssd", '  nodes: "twelve"\n  storage: ssd');
    const problems = scenarioProblems(cliError(broken), broken);
    expect(problems).toContainEqual(
      expect.objectContaining({ path: "cluster.nodes", line: lineOf(broken, 'nodes: "twelve"') }),
    );
    for (const problem of problems) expect(cliError(broken)).toContain(problem.message);
  });

  it("places a YAML syntax error at its line", () => {
    const broken = FLEET.replace("  rowBytes: 256", "  rowBytes: [256");
    const [problem] = scenarioProblems(cliError(broken), broken);
    expect(problem!.message).toMatch(/^scenario is not valid YAML: /);
    expect(problem!.line).toBeGreaterThanOrEqual(lineOf(broken, "rowBytes: [256"));
  });

  it("keeps an error that names no path whole", () => {
    const broken = FLEET.replace("group: acme-fleet\n      limit", "group: nobody\n      limit");
    expect(scenarioProblems(cliError(broken), broken)).toEqual([{ message: cliError(broken) }]);
  });
});

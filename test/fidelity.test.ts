/**
 * The simulator against the physics of Bigtable, not against numbers copied from its output.
 * Anchors: Google's "Understand performance" page (throughput "scales linearly as you add nodes";
 * https://cloud.google.com/bigtable/docs/performance) and the Bigtable paper's tablet-server
 * scaling (Chang et al., OSDI 2006: aggregate throughput grows with servers, while a key that
 * writes at one point is served by one tablet at a time). Scenarios live in examples/fidelity so a
 * user can run them: `keyspread simulate examples/fidelity/uniform-key.yaml`.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MODEL_CONSTANTS } from "../src/sim/cluster/model-constants.js";
import type { DesignResult } from "../src/sim/results/results.js";
import { simulateScenario } from "../src/sim/results/simulate.js";
import { SETTLED_RATIO } from "../src/sim/results/summary.js";
import { parseScenario, type Scenario } from "../src/sim/scenario/scenario.js";
import { matrixFromSteps } from "../src/viz/matrix/steps-matrix.js";
import { detectPatterns } from "../src/viz/patterns/detect-patterns.js";

const LONG = 120_000;

/** The scenario with `design` written as a new table (the current key runs on the table that exists). */
const asNewTable = (scenario: Scenario, design: string): Scenario => ({
  ...scenario,
  designs: scenario.designs.map((each) => (each.name === design ? { ...each, table: "new" } : each)),
});

const scenarioFile = (file: string) =>
  parseScenario(readFileSync(new URL(`../examples/${file}`, import.meta.url), "utf8"));

function run(
  file: string,
  options: Parameters<typeof simulateScenario>[1] = {},
): Record<string, DesignResult> {
  return Object.fromEntries(
    simulateScenario(scenarioFile(file), options).designs.map((design) => [design.design, design]),
  );
}

describe("a uniform key scales with nodes (Google: linear scaling)", () => {
  const designs = run("fidelity/uniform-key.yaml");

  it(
    "serves about twice the writes on twice the nodes once warmed up, when demand exceeds both",
    () => {
      const twelve = designs["nodes-12"]!.summary.steadyState;
      const twentyFour = designs["nodes-24"]!.summary.steadyState;
      expect(twelve.shedWriteShare).toBeGreaterThan(0.1);
      expect(twentyFour.shedWriteShare).toBeGreaterThan(0.05);
      expect(twentyFour.servedWritesPerS).toBeGreaterThanOrEqual(1.8 * twelve.servedWritesPerS);
    },
    LONG,
  );

  it("sheds nothing at half its capacity", () => {
    const half = designs["half-capacity-57"]!.summary;
    expect(half.steadyState.averageNodeCpu).toBeGreaterThan(0.4);
    expect(half.steadyState.averageNodeCpu).toBeLessThan(0.6);
    expect(half.steadyState.shedWriteShare).toBe(0);
    expect(half.settledAfterS).not.toBeNull();
  });
});

describe("a key that writes at one point is served by one node whatever the node count", () => {
  const designs = run("fidelity/time-first.yaml");
  const oneNode = MODEL_CONSTANTS.ssdWritesPerS.value;

  it("draws the tail as a diagonal on one hot node, not as a saturated cluster", () => {
    const kinds = detectPatterns(matrixFromSteps(designs["time-first-12"]!.loadSteps)).map(
      (finding) => finding.kind,
    );
    expect(kinds).toContain("diagonal");
    expect(kinds).not.toContain("saturated-cluster");
  });

  it.each(["time-first", "sequential"])("%s keys serve one node's capacity at 3, 12 and 30 nodes", (key) => {
    for (const nodes of [3, 12, 30]) {
      const served = designs[`${key}-${nodes}`]!.summary.steadyState.servedWritesPerS;
      expect(Math.abs(served - oneNode) / oneNode, `${key} on ${nodes} nodes`).toBeLessThan(0.15);
    }
  });
});

describe("tenant skew over many keys settles within the model's warm-up window", () => {
  it.each([
    ["fidelity/tenant-skew-40k.yaml", "writes-40k-8-nodes"],
    ["fidelity/tenant-skew-120k.yaml", "writes-120k-16-nodes"],
  ])(
    "%s",
    (file, name) => {
      const summary = run(file)[name]!.summary;
      expect(summary.hottestNodeCpu.first).toBeGreaterThan(2);
      expect(summary.settledAfterS).not.toBeNull();
      expect(summary.settledAfterS!).toBeLessThanOrEqual(summary.warmUpS);
      expect(summary.steadyState.shedWriteShare).toBe(0);
    },
    LONG,
  );
});

describe("the fleet incident: one customer's 90,000 devices in one key range", () => {
  const fleetScenario = scenarioFile("fleet-hotspot.yaml");
  const designs = run("fleet-hotspot.yaml", { durationS: 3600 });

  it("shows the customer's contiguous range as a hot band on saturated nodes while a new table warms up", () => {
    const [current] = simulateScenario(asNewTable(fleetScenario, "as-is"), {
      design: "as-is",
      durationS: 300,
    }).designs;
    const bands = detectPatterns(matrixFromSteps(current!.loadSteps)).filter(
      (finding) => finding.kind === "hot-band",
    );
    const overlapsCustomer = (band: (typeof bands)[number]) =>
      Buffer.compare(band.start, Buffer.from("acme-999999")) <= 0 &&
      (band.end === null || Buffer.compare(band.end, Buffer.from("acme-")) > 0);
    expect(bands.some(overlapsCustomer)).toBe(true);
  });

  it("resizes the table that exists: twice the nodes are flat from the first minute and no hotter than 12", () => {
    const twelve = designs["as-is"]!;
    const resized = designs["as-is-on-24-nodes"]!;
    expect(resized.table).toBe("existing");
    expect(resized.summary.maxOverMedian.first).toBeLessThanOrEqual(SETTLED_RATIO);
    expect(resized.summary.hottestNodeCpu.first).toBeLessThan(twelve.summary.hottestNodeCpu.first);
  });

  it("is flat from the start when salted by device", () => {
    const salted = designs["salt-64-by-deviceID"]!.summary;
    expect(salted.settledAfterS).toBe(0);
    expect(salted.maxOverMedian.first).toBeLessThan(1.5);
  });
});

describe("the farm sensors: a burst on one or two nodes becomes a burst on all ten", () => {
  const farms = scenarioFile("agri-iot.yaml");
  const designs = Object.fromEntries(
    simulateScenario(asNewTable(farms, "as-is")).designs.map((design) => [design.design, design]),
  );
  const busyNodes = (design: DesignResult, untilS = Number.POSITIVE_INFINITY) =>
    Math.max(
      ...design.timeline
        .filter((point) => point.t < untilS)
        .map((point) => point.nodeCpu.filter((cpu) => cpu > 0.001).length),
    );

  it("puts the unsalted new table's first burst on one node, and never spreads it over all ten", () => {
    expect(busyNodes(designs["as-is"]!, 60)).toBe(1);
    // A burst is about a third of one node: load splits cut it into a few tablets, no more.
    expect(busyNodes(designs["as-is"]!)).toBeLessThan(10);
  });

  it("puts every burst of the salted table on all ten nodes", () => {
    const salted = designs["salt-50-by-farm+sensor"]!;
    expect(busyNodes(salted)).toBe(10);
    for (const point of salted.timeline.filter((each) => each.averageNodeCpu > 0.001)) {
      expect(point.nodeCpu.every((cpu) => cpu > 0)).toBe(true);
    }
  });
});

/**
 * Five planted problems on Google's emulator, each table written with its rows and keyspread's
 * schema row, and diagnosed through `diagnoseTable` with the recorded hot-tablets answer that fits
 * it (the emulator has no instance admin API). Each must be classified as written down first
 * (gather/planted.testsuite.ts), and the lab on the scenario diagnose wrote must reproduce the
 * recorded CPU within ±5 points and agree: no node count fixes a key problem, more nodes fix a
 * capacity one.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { judgeScenario, type LabVerdict } from "../lab/judge.js";
import { BigtableStore } from "../store/bigtable/bigtable.js";
import { recordSchema } from "../table/schema-guard.js";
import { type DiagnoseTableResult, diagnoseTable } from "./diagnose-table.js";
import { type PlantedProblem, plantedProblems } from "./gather/planted.testsuite.js";

if (!process.env.BIGTABLE_EMULATOR_HOST)
  throw new Error("BIGTABLE_EMULATOR_HOST is unset: the vitest global setup starts the emulator");

/** The shortest run whose steady state the model reaches for every case (its warm-up, then a window). */
const LAB_DURATION_S = 300;
const VALUE = Buffer.alloc(32, 1);
/** A row's bytes here: a key of ~30 bytes and one 32-byte value, with the cell's overhead. */
const ROW_BYTES = 100;

const problems = plantedProblems(3000);
const results = new Map<string, { problem: PlantedProblem; result: DiagnoseTableResult }>();

beforeAll(async () => {
  const run = `${process.pid}_${Date.now().toString(36)}`;
  for (const [index, problem] of problems.entries()) {
    const tableId = `planted${index}_${run}`;
    const store = await BigtableStore.createTable({ tableId });
    try {
      const cells = new Map([["v", VALUE]]);
      const { failed } = await store.write(problem.keys.map((key) => ({ type: "put" as const, key, cells })));
      expect(failed).toEqual([]);
      await recordSchema(store, problem.schema);
    } finally {
      await store.close();
    }
    const result = await diagnoseTable({
      store: "bigtable",
      schema: problem.schema,
      tableId,
      sinceS: 86_400,
      sample: 2 * problem.keys.length,
      sampleTimeoutMs: 600_000,
      rowBytes: ROW_BYTES,
      nodes: problem.nodes,
      recordedHotTablets: [...problem.hotTablets(tableId), ...problem.hotTablets("another-table")],
    });
    results.set(problem.name, { problem, result });
  }
}, 240_000);

/**
 * Whether the lab's verdict agrees, read from the current key ("as-is"): for a key problem no node
 * count makes it meet the targets and the lab recommends another design; for a capacity one some
 * node count does (the lab may still find a cheaper design, as batching).
 */
function labAgrees(problem: PlantedProblem, verdict: LabVerdict): boolean {
  const { candidates, recommended } = verdict.advice;
  const asIs = candidates.find((evaluated) => evaluated.candidate.name === "as-is");
  if (asIs?.kind !== "judged") return false;
  const nodesFixIt = asIs.scores.nodesNeeded !== null;
  return problem.expected.keyProblem
    ? !nodesFixIt && recommended !== undefined && recommended.candidate.name !== "as-is"
    : nodesFixIt;
}

describe.each(problems.map((problem) => problem.name))("planted on the emulator: %s", (name) => {
  it("is classified as written down first, reading the schema row and the recorded answer right", () => {
    const { problem, result } = results.get(name)!;
    const { report } = result;
    expect([report.diagnosis.kind, report.diagnosis.remedy]).toEqual([
      problem.expected.kind,
      problem.expected.remedy,
    ]);
    expect(report.forced).toEqual([]);
    expect(report.sample).toMatchObject({ reserved: 1, undecoded: { count: 0 } });
    if (report.heat.kind === "hot-tablets")
      expect(report.heat.otherTables).toEqual([
        { table: "another-table", tablets: problem.hotTablets("another-table").length },
      ]);
  });

  it("writes a scenario the lab calibrates to the recorded CPU (±5 points) and judges as the diagnosis does", () => {
    const { problem, result } = results.get(name)!;
    const scenario = result.report.scenario!;
    expect(scenario.observed?.nodes).toBe(problem.nodes);
    const verdict = judgeScenario(scenario, { durationS: LAB_DURATION_S, sensitivity: false });
    const calibration = verdict.calibration!;
    expect(calibration.fit.status).toBe("fitted");
    if (calibration.fit.status !== "fitted") return;
    expect(Math.abs(calibration.fit.figures[calibration.metric] - problem.recordedCpu)).toBeLessThanOrEqual(
      0.05,
    );
    expect(labAgrees(problem, verdict)).toBe(true);
  }, 120_000);
});

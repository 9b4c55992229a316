/**
 * The run's writes beside the lab's, on Google's emulator: a few seconds of the fleet scenario at a
 * small scale, written through `SaltedTable` to a Bigtable table with the access log on, then the
 * log's writes counted in the lab's heatmap rows (its key ranges) and compared with the lab's
 * shares — for the key as it is (the big customer's contiguous ids: most writes in the rows its ids
 * fall in) and salted (every row alike, every bucket near an even share). Each design's run is also
 * compared with the other design's lab, which must disagree: the check can fail.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FileAccessLogSink } from "../access-log/file-sink.js";
import { compileSchema } from "../keys/index.js";
import type { KeySchema } from "../keys/types.js";
import type { DesignResult } from "../sim/results/results.js";
import { parseScenario } from "../sim/scenario/scenario.js";
import { BigtableStore } from "../store/bigtable/bigtable.js";
import { SaltedTable } from "../table/salted-table.js";
import { compareLoad, loggedWrites, samplingDistance, TOLERANCE } from "./load-by-range.js";
import { runLoadTestTask } from "./loadtest-task.js";
import { predict } from "./prediction.js";
import { openRun, scenarioHash } from "./run-record.js";
import { scaleScenario } from "./scaled-scenario.js";

const fleet = parseScenario(readFileSync("examples/fleet-hotspot.yaml", "utf8"));
const dir = mkdtempSync(join(tmpdir(), "keyspread-hot-band-"));

interface DesignRun {
  schema: KeySchema;
  lab: DesignResult;
  keys: Buffer[];
}

async function runDesign(designName: string): Promise<DesignRun> {
  const scaled = scaleScenario(fleet, designName, 0.001, 1);
  const schema = compileSchema(scaled.design.schema);
  const store = await BigtableStore.createTable({
    tableId: `hotband${process.pid}${designName.replace(/\W/g, "")}`,
  });
  const log = join(dir, `${designName}.jsonl`);
  const sink = await FileAccessLogSink.open(log);
  try {
    const table = await SaltedTable.open(store, schema, { create: true, accessLog: { sink } });
    const run = await openRun(store, {
      scenario: fleet.name,
      scenarioHash: scenarioHash(scaled.scenario),
      design: designName,
      schemaFingerprint: schema.fingerprint,
      scale: scaled.scale,
      tasks: 1,
      durationS: 4,
      nodes: 1,
    });
    const outcome = await runLoadTestTask({
      store,
      table,
      scaled,
      run,
      task: { index: 0, count: 1, engine: "flags" },
      host: "test",
      timing: { leaseMs: 5000, now: Date.now },
      intervalS: 1,
    });
    expect(outcome.status).toBe("done");
  } finally {
    await sink.close();
    await store.deleteTable();
    await store.close();
  }
  return { schema, lab: predict(scaled, 120), keys: await loggedWrites([log]) };
}

const ACME = Buffer.from("acme-");
const acmeShare = (rows: { start: Buffer; lab: number; run: number }[], side: "lab" | "run") =>
  rows
    .filter((row) => row.start.subarray(0, ACME.length).equals(ACME))
    .reduce((sum, row) => sum + row[side], 0);

describe("the run's writes beside the lab's, in the lab's heatmap rows (emulator)", () => {
  let asIs: DesignRun;
  let salted: DesignRun;
  beforeAll(async () => {
    asIs = await runDesign("as-is");
    salted = await runDesign("salt-16-by-deviceID+ts");
  }, 240_000);

  it("as-is: the big customer's rows carry the same share in the run as in the lab", () => {
    const comparison = compareLoad(asIs.lab, asIs.keys, asIs.schema);
    expect(comparison).toMatchObject({ agree: true, writes: asIs.keys.length });
    expect(comparison.buckets).toBeUndefined();
    expect(comparison.distance).toBeLessThanOrEqual(comparison.allowed);
    // The hot band: rows starting inside the fleet's ids carry most of both sides' writes.
    expect(acmeShare(comparison.rows, "lab")).toBeGreaterThan(0.3);
    expect(Math.abs(acmeShare(comparison.rows, "run") - acmeShare(comparison.rows, "lab"))).toBeLessThan(0.1);
  });

  it("salted: every row and every bucket alike in the run as in the lab", () => {
    const comparison = compareLoad(salted.lab, salted.keys, salted.schema);
    expect(comparison.agree).toBe(true);
    const even = 1 / comparison.rows.length;
    for (const row of comparison.rows) expect(row.lab).toBeCloseTo(even, 2);
    expect(comparison.buckets?.shares).toHaveLength(16);
    // Within the noise of a few hundred writes over 16 buckets, and nothing like one hot bucket.
    expect(comparison.buckets?.busiestOverEven).toBeLessThan(2);
  });

  it("disagrees when the run is not the lab's design: the comparison can fail", () => {
    const asIsRunSaltedLab = compareLoad(salted.lab, asIs.keys, asIs.schema);
    const saltedRunAsIsLab = compareLoad(asIs.lab, salted.keys, salted.schema);
    for (const comparison of [asIsRunSaltedLab, saltedRunAsIsLab]) {
      expect(comparison.agree).toBe(false);
      expect(comparison.distance).toBeGreaterThan(0.4);
    }
  });
});

describe("the distance sampling alone gives", () => {
  it("shrinks with the writes counted, so a long run is held to the plain tolerance", () => {
    const shares = Array.from({ length: 16 }, () => 1 / 16);
    expect(samplingDistance(shares, 100)).toBeGreaterThan(samplingDistance(shares, 10_000));
    expect(samplingDistance(shares, 1_000_000)).toBeLessThan(0.02 * TOLERANCE);
    // Two even rows, 100 writes: each share's σ is 0.05, E|X − p| = √(2/π)·0.05; the distance is half their sum.
    expect(samplingDistance([0.5, 0.5], 100)).toBeCloseTo(Math.sqrt(2 / Math.PI) * 0.05, 6);
    // One row holding everything has no sampling spread at all.
    expect(samplingDistance([1], 50)).toBe(0);
  });
});

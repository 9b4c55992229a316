/**
 * The run's heatmap beside the lab's, on Google's emulator: a few seconds of the fleet scenario at a
 * small scale, written through `SaltedTable` to a Bigtable table with the access log on, then the
 * hot bands of the log compared with the lab's by key range — for the key as it is (one narrow band:
 * the big customer's contiguous ids) and salted (the band split over the buckets).
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileAccessLogSink } from "../access-log/file-sink.js";
import { compileSchema } from "../keys/index.js";
import { parseScenario } from "../sim/scenario/scenario.js";
import { BigtableStore } from "../store/bigtable/bigtable.js";
import { SaltedTable } from "../table/salted-table.js";
import { axisOver, compareHotBands, hotBands, labLoad, loggedWrites, measuredLoad } from "./hot-band.js";
import { runLoadTestTask } from "./loadtest-task.js";
import { predict } from "./prediction.js";
import { openRun, scenarioHash } from "./run-record.js";
import { scaleScenario } from "./scaled-scenario.js";

const fleet = parseScenario(readFileSync("examples/fleet-hotspot.yaml", "utf8"));
const dir = mkdtempSync(join(tmpdir(), "keyspread-hot-band-"));

async function runAndCompare(designName: string) {
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
  const keys = await loggedWrites([log]);
  const axis = axisOver(keys);
  return compareHotBands(hotBands(labLoad(axis, predict(scaled, 120))), hotBands(measuredLoad(axis, keys)));
}

describe("the run's hot bands beside the lab's (emulator)", () => {
  it("as-is: one narrow band, over the same keys in the lab and in the run", async () => {
    const { lab, measured, agree } = await runAndCompare("as-is");
    expect(agree).toBe(true);
    expect(lab).toHaveLength(1);
    expect(measured).toHaveLength(1);
    expect(lab[0]!.last - lab[0]!.first).toBeLessThanOrEqual(1);
    expect(measured[0]).toMatchObject({ first: lab[0]!.first });
    // The big customer's share of the writes (62 %) sits in that band in the run.
    expect(measured[0]!.share).toBeGreaterThan(0.5);
  }, 120_000);

  it("salted: the same bands in the lab and the run, none of them the as-is key's single narrow one", async () => {
    const { lab, measured, agree } = await runAndCompare("salt-16-by-deviceID+ts");
    expect(agree).toBe(true);
    expect(lab.length).toBeGreaterThan(0);
    for (const bands of [lab, measured]) {
      expect(bands.every((band) => band.last - band.first >= 1)).toBe(true);
    }
  }, 120_000);
});

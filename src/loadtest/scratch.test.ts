import { readFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { it } from "vitest";
import { FileAccessLogSink } from "../access-log/file-sink.js";
import { compileSchema } from "../keys/index.js";
import { MemoryStore } from "../store/memory.js";
import { parseScenario } from "../sim/scenario/scenario.js";
import { simulateScenario } from "../sim/results/simulate.js";
import { SaltedTable } from "../table/salted-table.js";
import { axisOver, compareHotBands, hotBands, labLoad, loggedWrites, measuredLoad } from "./hot-band.js";
import { runLoadTestTask } from "./loadtest-task.js";
import { openRun, scenarioHash } from "./run-record.js";
import { scaleScenario } from "./scaled-scenario.js";

it("scratch", async () => {
  const scenario = parseScenario(readFileSync("examples/fleet-hotspot.yaml", "utf8"));
  for (const designName of ["as-is", "salt-16-by-deviceID+ts"]) {
    const scaled = scaleScenario(scenario, designName, 0.001, 1);
    const schema = compileSchema(scaled.design.schema);
    let t0 = performance.now();
    const sim = simulateScenario(scaled.scenario, { design: designName, durationS: 120 });
    
    const store = new MemoryStore();
    const dir = mkdtempSync(join(tmpdir(), "lt-"));
    const sink = await FileAccessLogSink.open(join(dir, "a.jsonl"));
    const table = await SaltedTable.open(store, schema, { create: true, accessLog: { sink } });
    const run = await openRun(store, { scenario: scenario.name, scenarioHash: scenarioHash(scaled.scenario), design: designName, schemaFingerprint: schema.fingerprint, scale: 0.001, tasks: 1, durationS: 4, nodes: 1, createdTable: true });
    t0 = performance.now();
    const outcome = await runLoadTestTask({ store, table, scaled, run, task: { index: 0, count: 1, engine: "flags" }, host: "h", timing: { leaseMs: 5000, now: Date.now }, intervalS: 1 });
    console.log("run ms", performance.now() - t0, outcome.status, outcome.measurement.writes, outcome.measurement.targetWrites, outcome.measurement.reads, outcome.measurement.targetReads, outcome.measurement.errors);
    await sink.close();
    const keys = await loggedWrites([join(dir, "a.jsonl")]);
    const axis = axisOver(keys);
    const cmp = compareHotBands(hotBands(labLoad(axis, sim.designs[0]!)), hotBands(measuredLoad(axis, keys)));
    console.log(designName, JSON.stringify(cmp));
  }
}, 120_000);

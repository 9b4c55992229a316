/**
 * One task's share on the memory store (the same `Store` contract as Bigtable's): the rates it
 * drives, the run row two tasks race to write, a share resumed from its checkpoint, and the stop
 * when the error rate passes its threshold. Seconds of load, not minutes.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileSchema } from "../keys/index.js";
import { parseScenario } from "../sim/scenario/scenario.js";
import { MemoryStore } from "../store/memory/memory.js";
import type { Store } from "../store/store.js";
import { SaltedTable } from "../table/salted-table.js";
import { isReserved } from "../table/schema-guard.js";
import { runLoadTestTask } from "./loadtest-task.js";
import { LoadTestConflictError, markTableCreated, openRun, readShares, scenarioHash } from "./run-record.js";
import { readRunStatus } from "./run-status.js";
import { scaleScenario } from "./scaled-scenario.js";

const fleet = parseScenario(readFileSync("examples/fleet-hotspot.yaml", "utf8"));
const scaled = scaleScenario(fleet, "as-is", 0.001, 1);
const schema = compileSchema(scaled.design.schema);
const wanted = (durationS: number, tasks = 1) => ({
  scenario: fleet.name,
  scenarioHash: scenarioHash(scaled.scenario),
  design: "as-is",
  schemaFingerprint: schema.fingerprint,
  scale: 0.001,
  tasks,
  durationS,
  nodes: 1,
});

async function task(
  store: Store,
  durationS: number,
  extra: Partial<Parameters<typeof runLoadTestTask>[0]> = {},
) {
  const table = await SaltedTable.open(store, schema, { create: true });
  const run = await openRun(store, wanted(durationS));
  return runLoadTestTask({
    store,
    table,
    scaled,
    run,
    task: { index: 0, count: 1, engine: "flags" },
    host: "test",
    timing: { leaseMs: 2000, now: Date.now },
    intervalS: 1,
    ...extra,
  });
}

describe("a load test's task", () => {
  it("drives the scaled rates and records them in its share", async () => {
    const store = new MemoryStore();
    const outcome = await task(store, 3);
    expect(outcome.status).toBe("done");
    const m = outcome.measurement;
    // 180 rows/s for 3 s, and 8 latest-100 reads/s.
    expect(m.targetWrites).toBeGreaterThan(500);
    expect(m.writes / m.targetWrites).toBeGreaterThan(0.9);
    expect(m.reads / m.targetReads).toBeGreaterThan(0.9);
    expect(m.timeline.length).toBeGreaterThanOrEqual(3);
    const status = (await readRunStatus(store))!;
    expect(status.shares).toEqual([expect.objectContaining({ task: 0, state: "done", writes: m.writes })]);
    expect(status.run.createdTable).toBe(false);
  }, 60_000);

  it("opens one run however many tasks race, and refuses a task asking another", async () => {
    const store = new MemoryStore();
    await markTableCreated(store);
    const runs = await Promise.all([1, 2, 3].map(() => openRun(store, wanted(60, 3))));
    expect(new Set(runs.map((run) => run.runId)).size).toBe(1);
    expect(runs[0]!.createdTable).toBe(true);
    const refused = await openRun(store, wanted(60, 4)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LoadTestConflictError);
    expect(refused).toMatchObject({
      field: "tasks",
      wanted: 4,
      existing: { tasks: 3, runId: runs[0]?.runId },
    });
  });

  it("resumes a stopped share from its checkpoint", async () => {
    const store = new MemoryStore();
    const stop = new AbortController();
    const first = task(store, 4, {
      signal: stop.signal,
      onInterval: (interval) => {
        if (interval.atS >= 1) stop.abort();
      },
    });
    const stopped = await first;
    expect(stopped.status).toBe("stopped");
    const [share] = await readShares(store, (await readRunStatus(store))!.run);
    expect(share!.lease!.expiresAt).toBe(0);
    const resumed = await task(store, 4);
    expect(resumed.status).toBe("done");
    expect(resumed.resumedFromS).toBeGreaterThanOrEqual(1);
    expect(resumed.measurement.writes).toBeGreaterThan(stopped.measurement.writes);
  }, 60_000);

  it("stops when an interval's error rate passes the threshold, marking the share failed", async () => {
    const memory = new MemoryStore();
    // The data rows fail; the table's own rows (schema, run, shares) are written.
    const store: Store = {
      name: memory.name,
      write: async (mutations, options) =>
        mutations.some((m) => !isReserved(m.key))
          ? {
              failed: mutations.map((m, index) => ({ index, key: m.key, reason: "UNAVAILABLE: overloaded" })),
            }
          : memory.write(mutations, options),
      checkAndMutate: (mutation, condition, options) => memory.checkAndMutate(mutation, condition, options),
      get: (key, options) => memory.get(key, options),
      read: (ranges, options) => memory.read(ranges, options),
      sampleKeys: (count) => memory.sampleKeys(count),
      close: () => memory.close(),
    };
    const outcome = await task(store, 30, { maxErrorRate: 0.05 });
    expect(outcome.status).toBe("failed");
    expect(outcome.measurement.errors.UNAVAILABLE).toBeGreaterThan(0);
    expect(outcome.measurement.drivenS).toBeLessThan(30);
    const status = (await readRunStatus(store))!;
    expect(status.shares[0]).toMatchObject({
      state: "failed",
      failed: expect.stringMatching(/error rate .* passed --max-error-rate 0.05/),
    });
  }, 60_000);
});

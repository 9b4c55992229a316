import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../store/memory/memory.js";
import { backfillJobTask } from "../backfill-job.js";
import { fillSource, MIGRATIONS } from "../fixtures.testsuite.js";
import { validateJobTask } from "../validate-job.js";
import { JobConflictError } from "./job-plan.js";
import { readShard, readShards } from "./job-rows.js";
import { jobStatuses } from "./job-status.js";
import { HeldShard, ShardLostError } from "./shard-lease.js";
import { type TaskIdentityProblem, taskIdentity } from "./task-identity.js";

const { from, to, row } = MIGRATIONS[0]!;

/** A clock the test moves by hand. */
function manualClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("task identity", () => {
  it("comes from Cloud Run, Kubernetes or Batch, flags winning", () => {
    expect(taskIdentity({}, { CLOUD_RUN_TASK_INDEX: "3", CLOUD_RUN_TASK_COUNT: "8" })).toEqual({
      index: 3,
      count: 8,
      engine: "cloud-run",
    });
    expect(taskIdentity({ tasks: 4 }, { JOB_COMPLETION_INDEX: "2" })).toEqual({
      index: 2,
      count: 4,
      engine: "kubernetes",
    });
    expect(taskIdentity({}, { BATCH_TASK_INDEX: "0", BATCH_TASK_COUNT: "2" })).toMatchObject({
      engine: "batch",
    });
    expect(taskIdentity({ tasks: 2, taskIndex: 1 }, { BATCH_TASK_INDEX: "0" })).toMatchObject({
      index: 1,
      engine: "flags",
    });
  });

  it("refuses what cannot be a task", () => {
    const problem = (fields: TaskIdentityProblem) =>
      expect.objectContaining({ name: "TaskIdentityError", problem: fields });
    expect(() => taskIdentity({}, { JOB_COMPLETION_INDEX: "1" })).toThrow(
      problem({ code: "tasks-missing", indexVariable: "JOB_COMPLETION_INDEX" }),
    );
    expect(() => taskIdentity({ tasks: 4 }, {})).toThrow(
      problem({
        code: "no-task-index",
        count: 4,
        variables: ["CLOUD_RUN_TASK_INDEX", "JOB_COMPLETION_INDEX", "BATCH_TASK_INDEX"],
      }),
    );
    expect(() => taskIdentity({ tasks: 4 }, { JOB_COMPLETION_INDEX: "4" })).toThrow(
      problem({ code: "not-in-range", field: "JOB_COMPLETION_INDEX", value: "4", min: 0, max: 3 }),
    );
    expect(() =>
      taskIdentity({ tasks: 3 }, { CLOUD_RUN_TASK_INDEX: "0", CLOUD_RUN_TASK_COUNT: "4" }),
    ).toThrow(problem({ code: "tasks-disagree", tasks: 3, variable: "CLOUD_RUN_TASK_COUNT", count: 4 }));
  });
});

describe("an indexed job in one process (memory stores)", () => {
  it("copies and validates with three tasks; status shows every shard done", async () => {
    const source = new MemoryStore({ name: "old" });
    const target = new MemoryStore({ name: "new" });
    await fillSource(source, from, row, 3000);
    const tasks = [0, 1, 2].map((index) => ({ index, count: 3, engine: "flags" as const }));
    const common = { source, sourceSchema: from, target, targetSchema: to, timing: { leaseMs: 5000 } };
    const copied = await Promise.all(
      tasks.map((task) => backfillJobTask({ ...common, task, batchSize: 200 })),
    );
    expect(copied.reduce((sum, r) => sum + r.rowsWritten, 0)).toBe(3000);
    expect(copied.flatMap((r) => r.done).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 24 }, (_, i) => i),
    );
    const checked = await Promise.all(tasks.map((task) => validateJobTask({ ...common, task })));
    expect(checked.at(-1)!.summary).toMatchObject({ shards: { done: 24 }, differences: { count: 0 } });
    const [backfill, validate] = await jobStatuses(target);
    expect(backfill).toMatchObject({
      kind: "backfill",
      rows: 3000,
      shards: { total: 24, done: 24, failed: 0 },
    });
    expect(validate).toMatchObject({ kind: "validate", rows: 6000, etaSeconds: 0 });
  });

  it("refuses a second migration or plan on the table, naming the one there", async () => {
    const source = new MemoryStore({ name: "old" });
    const target = new MemoryStore({ name: "new" });
    await fillSource(source, from, row, 100);
    const task = { index: 0, count: 1, engine: "flags" as const };
    await backfillJobTask({ source, sourceSchema: from, target, targetSchema: to, task });
    const other = new MemoryStore({ name: "other" });
    await fillSource(other, from, row, 10);
    const second = backfillJobTask({ source: other, sourceSchema: from, target, targetSchema: to, task });
    await expect(second).rejects.toThrow(JobConflictError);
    await expect(second).rejects.toMatchObject({
      target: "memory:new",
      existing: { kind: "backfill", source: "memory:old", shards: 8 },
      conflict: { field: "source", wanted: "memory:other" },
    });
    await expect(
      backfillJobTask({ source, sourceSchema: from, target, targetSchema: to, task, shards: 16 }),
    ).rejects.toMatchObject({ conflict: { field: "shards", wanted: 16 }, existing: { shards: 8 } });
  });

  it("gives a lapsed lease to another task and fences the old holder's writes", async () => {
    const store = new MemoryStore();
    const clock = manualClock();
    const timing = { leaseMs: 1000, now: clock.now };
    const first = (await HeldShard.claim(store, "backfill", { index: 5 }, { task: 0, host: "a" }, timing))!;
    await first.checkpoint({ rows: 10, complete: false, updatedAt: clock.now(), detail: null });
    // The holder froze past its lease; another task read the lapsed lease and took the shard.
    clock.advance(1500);
    const seen = await readShard(store, "backfill", 5);
    expect(seen.lease!.expiresAt).toBeLessThanOrEqual(clock.now());
    const second = await HeldShard.claim(store, "backfill", seen, { task: 1, host: "b" }, timing);
    expect(second).toBeDefined();
    expect((await readShards(store, "backfill", 8))[5]!.lease!.task).toBe(1);
    await expect(first.ensureHeld()).rejects.toThrow(ShardLostError);
    await expect(first.checkpoint({ rows: 99, complete: false, updatedAt: 0, detail: null })).rejects.toThrow(
      ShardLostError,
    );
    expect((await readShard(store, "backfill", 5)).progress!.rows).toBe(10);
  });

  it("lets only one of two tasks claim what both saw free", async () => {
    const store = new MemoryStore();
    const timing = { leaseMs: 1000, now: () => 0 };
    const free = await readShard(store, "validate", 0);
    const claims = await Promise.all(
      [0, 1, 2, 3].map((task) => HeldShard.claim(store, "validate", free, { task, host: "h" }, timing)),
    );
    expect(claims.filter((claim) => claim !== undefined)).toHaveLength(1);
  });
});

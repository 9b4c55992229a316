/**
 * One task of a load test, as an indexed job runs it: it takes its own share (the share row of its
 * index) under a lease, resumes from the share's progress when an earlier attempt with the same
 * index recorded some, drives the load to the run's end, and checkpoints its measurement at every
 * interval. A lease still held by a killed attempt is waited out (it lapses unrenewed). It stops
 * cleanly on `signal` (SIGTERM: the share is checkpointed and let go, so a restart resumes it at
 * once) and when an interval's error rate passes `maxErrorRate` (the share is marked failed).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { readShard, type ShardRecord } from "../migrate/job/job-rows.js";
import { HeldShard, type LeaseTiming, ShardLostError } from "../migrate/job/shard-lease.js";
import type { TaskIdentity } from "../migrate/job/task-identity.js";
import type { Store } from "../store/store.js";
import type { SaltedTable } from "../table/salted-table.js";
import { emptyMeasurement, type Interval, type Measurement } from "./measurement.js";
import type { LoadTestRun } from "./run-record.js";
import type { ScaledScenario } from "./scaled-scenario.js";
import { TaskLoad } from "./task-load.js";

export interface LoadTestTaskOptions {
  /** The table's store: the run's rows live in its reserved range. */
  store: Store;
  table: SaltedTable;
  scaled: ScaledScenario;
  run: LoadTestRun;
  task: TaskIdentity;
  host: string;
  timing: LeaseTiming;
  /** Stop when an interval's failed operations pass this share of its operations (default 0.05). */
  maxErrorRate?: number;
  intervalS?: number;
  maxInFlight?: number;
  signal?: AbortSignal;
  onInterval?: (interval: Interval, measurement: Measurement) => void;
}

export type TaskOutcome =
  | { status: "done" | "stopped"; resumedFromS: number; measurement: Measurement }
  | { status: "failed"; reason: string; resumedFromS: number; measurement: Measurement };

/** Operations an interval needs before its error rate may stop the run (a few failures of a handful are noise). */
const MIN_OPERATIONS = 20;

export async function runLoadTestTask(options: LoadTestTaskOptions): Promise<TaskOutcome> {
  const { task, timing } = options;
  const maxErrorRate = options.maxErrorRate ?? 0.05;
  const held = await claimShare(options);
  if ("done" in held) return { status: "done", resumedFromS: held.done.drivenS, measurement: held.done };
  const { shard, record } = held;
  const measurement = (record.progress?.detail as Measurement | undefined) ?? emptyMeasurement();
  const resumedFromS = measurement.drivenS;
  const stopper = new AbortController();
  const signals = [stopper.signal, shard.signal, ...(options.signal ? [options.signal] : [])];
  let failure: string | undefined;
  const progress = (complete: boolean) => ({
    rows: measurement.writes,
    complete,
    updatedAt: timing.now(),
    detail: measurement,
  });
  shard.startRenewing();
  try {
    const load = new TaskLoad({
      table: options.table,
      scaled: options.scaled,
      task,
      run: options.run,
      ...(options.intervalS === undefined ? {} : { intervalS: options.intervalS }),
      ...(options.maxInFlight === undefined ? {} : { maxInFlight: options.maxInFlight }),
      now: timing.now,
    });
    await load.drive(
      measurement,
      async (interval) => {
        measurement.timeline.push(interval);
        const operations = interval.writes + interval.reads + interval.errors;
        if (operations >= MIN_OPERATIONS && interval.errors / operations > maxErrorRate) {
          failure = `error rate ${(interval.errors / operations).toFixed(3)} over the interval ending at ${interval.atS} s passed --max-error-rate ${maxErrorRate}`;
          stopper.abort();
        }
        await shard.checkpoint(progress(false));
        options.onInterval?.(interval, measurement);
      },
      AbortSignal.any(signals),
    );
    if (shard.lost) throw new ShardLostError(task.index);
    if (failure !== undefined) {
      await shard.release({ ...progress(false), failed: failure });
      return { status: "failed", reason: failure, resumedFromS, measurement };
    }
    const finished = measurement.drivenS >= options.run.durationS;
    await shard.release(progress(finished));
    return { status: finished ? "done" : "stopped", resumedFromS, measurement };
  } finally {
    shard.stop();
  }
}

/** Takes this task's share, waiting out another attempt's lease; its measurement when the share is already complete. */
async function claimShare(
  options: LoadTestTaskOptions,
): Promise<{ shard: HeldShard; record: ShardRecord } | { done: Measurement }> {
  const { store, task, timing } = options;
  for (;;) {
    options.signal?.throwIfAborted();
    const record = await readShard(store, "loadtest", task.index);
    if (record.progress?.complete) return { done: record.progress.detail as Measurement };
    const lapsesIn = (record.lease?.expiresAt ?? 0) - timing.now();
    if (lapsesIn > 0) {
      await sleep(Math.min(lapsesIn + 50, 1000), undefined, { signal: options.signal });
      continue;
    }
    const shard = await HeldShard.claim(
      store,
      "loadtest",
      record,
      { task: task.index, host: options.host },
      timing,
    );
    if (shard !== undefined) return { shard, record };
  }
}

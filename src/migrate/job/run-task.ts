/**
 * One task of an indexed job: claim a free shard (starting from the task's own share of the
 * plan, so tasks rarely race for one), work it under its lease, release it done, and again until
 * every shard is done or failed. A task out of free shards waits for the others' leases, taking
 * any that lapse: a dead or frozen task then holds nothing up, and the job finishes as long as one
 * task runs.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { RetryableStoreError, type Store } from "../../store/store.js";
import type { JobKind, JobPlan, ShardProgress, ShardRecord } from "./job-rows.js";
import { readShard, readShards } from "./job-rows.js";
import { HeldShard, type Holder, type LeaseTiming, ShardLostError } from "./shard-lease.js";
import type { TaskIdentity } from "./task-identity.js";

export type JobEvent =
  | { event: "claimed" | "lost" | "done" | "writing"; kind: JobKind; shard: number; task: number; at: number }
  | { event: "failed"; kind: JobKind; shard: number; task: number; at: number; reason: string };

export interface RunTaskOptions {
  /** The target table: the job's rows live there. */
  store: Store;
  plan: JobPlan;
  task: TaskIdentity;
  host: string;
  timing: LeaseTiming;
  /** Claim shards an earlier attempt marked failed (after fixing what failed them). */
  retryFailed?: boolean;
  /**
   * Does the shard's work, checkpointing through `held`; resolves the shard's final rows and
   * detail. An error other than a lost lease or a retryable store error fails the shard.
   */
  work: (shard: ShardRecord, held: HeldShard) => Promise<Pick<ShardProgress, "rows" | "detail">>;
  onEvent?: (event: JobEvent) => void;
  signal?: AbortSignal;
}

export interface TaskResult {
  /** Shards this task finished, lost, and failed (0-based). */
  done: number[];
  lost: number[];
  failed: { shard: number; reason: string }[];
}

/** Retryable errors in a row (a network blip) before the task gives up and lets its engine retry it. */
const RETRYABLE_FAILURES = 5;

export async function runJobTask(options: RunTaskOptions): Promise<TaskResult> {
  const { store, plan, task, timing } = options;
  const result: TaskResult = { done: [], lost: [], failed: [] };
  const holder: Holder = { task: task.index, host: options.host };
  const emit = (event: "claimed" | "lost" | "done", shard: number) =>
    options.onEvent?.({ event, kind: plan.kind, shard, task: task.index, at: timing.now() });
  let retryable = 0;
  for (;;) {
    options.signal?.throwIfAborted();
    const shards = await readShards(store, plan.kind, plan.shards);
    const open = shards.filter(
      (s) => !s.progress?.complete && (options.retryFailed || s.progress?.failed === undefined),
    );
    if (open.length === 0) return result;
    const held = await claimOne(options, open, holder);
    if (held === undefined) {
      await sleep(waitForLapse(open, timing), undefined, { signal: options.signal });
      continue;
    }
    emit("claimed", held.index);
    let shard: ShardRecord = { index: held.index };
    try {
      // Progress may have moved between the read and the claim: the holder before wrote it.
      shard = await readShard(store, plan.kind, held.index);
      held.startRenewing();
      const final = await options.work(shard, held);
      await held.release({ ...final, complete: true, updatedAt: timing.now() });
      result.done.push(held.index);
      emit("done", held.index);
      retryable = 0;
    } catch (error) {
      if (held.lost || error instanceof ShardLostError) {
        result.lost.push(held.index);
        emit("lost", held.index);
      } else if (error instanceof RetryableStoreError) {
        // The lease lapses by itself; this task or another takes the shard up again.
        if (++retryable >= RETRYABLE_FAILURES) throw error;
      } else {
        const reason = error instanceof Error ? error.message : String(error);
        const last = held.lastProgress ?? shard.progress;
        await held
          .release({
            rows: last?.rows ?? 0,
            detail: last?.detail ?? null,
            complete: false,
            failed: reason,
            updatedAt: timing.now(),
          })
          .catch(() => {});
        result.failed.push({ shard: held.index, reason });
        options.onEvent?.({
          event: "failed",
          kind: plan.kind,
          shard: held.index,
          task: task.index,
          at: timing.now(),
          reason,
        });
      }
    } finally {
      held.stop();
    }
  }
}

/** Claims the first free shard from the task's own share on (wrapping around); undefined when none is free. */
async function claimOne(
  options: RunTaskOptions,
  open: ShardRecord[],
  holder: Holder,
): Promise<HeldShard | undefined> {
  const { plan, task, timing } = options;
  const now = timing.now();
  const home = Math.floor((task.index * plan.shards) / task.count);
  const free = open
    .filter((s) => s.lease === undefined || s.lease.expiresAt <= now)
    .sort((a, b) => distance(a.index, home, plan.shards) - distance(b.index, home, plan.shards));
  for (const shard of free) {
    const held = await HeldShard.claim(options.store, plan.kind, shard, holder, timing);
    if (held !== undefined) return held;
  }
  return undefined;
}

function distance(index: number, home: number, shards: number): number {
  return (index - home + shards) % shards;
}

/** How often a task with nothing to claim looks again: at most a second, so it ends soon after the job. */
const POLL_MS = 1000;

/** Until the first held lease lapses, within [lease/20, min(lease/2, POLL_MS)]. */
function waitForLapse(open: ShardRecord[], timing: LeaseTiming): number {
  const now = timing.now();
  const next = Math.min(...open.map((s) => (s.lease?.expiresAt ?? now) - now));
  return Math.min(Math.max(next, timing.leaseMs / 20), timing.leaseMs / 2, POLL_MS);
}

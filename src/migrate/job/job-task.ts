/** What every task of an indexed job (backfill or validate) is given, besides its tables. */
import { hostname } from "node:os";
import type { KeySchema } from "../../keys/types.js";
import type { Store } from "../../store/store.js";
import type { JobKind, JobPlan } from "./job-rows.js";
import type { JobEvent, RunTaskOptions } from "./run-task.js";
import { DEFAULT_LEASE_MS, type LeaseTiming } from "./shard-lease.js";
import type { TaskIdentity } from "./task-identity.js";

export interface JobTaskOptions {
  source: Store;
  sourceSchema: KeySchema;
  /** The new table: it holds the job's plan, leases and progress. */
  target: Store;
  targetSchema: KeySchema;
  task: TaskIdentity;
  /** Shards in the plan (default 8× the task count); an existing plan's count is taken when absent. */
  shards?: number;
  /** Lease length and clock (default 30 s, the system clock). */
  timing?: Partial<LeaseTiming>;
  /** Named in the leases (default the host name): `migrate status` shows who holds what. */
  host?: string;
  retryFailed?: boolean;
  onEvent?: (event: JobEvent) => void;
  signal?: AbortSignal;
}

export function leaseTiming(timing: Partial<LeaseTiming> | undefined): LeaseTiming {
  const leaseMs = timing?.leaseMs ?? DEFAULT_LEASE_MS;
  if (!(Number.isFinite(leaseMs) && leaseMs >= 100)) {
    throw new RangeError(`leaseMs is ${leaseMs}; allowed: a number of milliseconds ≥ 100`);
  }
  return { leaseMs, now: timing?.now ?? Date.now };
}

export function wantedJob(options: JobTaskOptions, kind: JobKind) {
  return {
    kind,
    source: options.source.name,
    target: options.target.name,
    sourceFingerprint: options.sourceSchema.fingerprint,
    targetFingerprint: options.targetSchema.fingerprint,
    shards: options.shards,
    tasks: options.task.count,
  };
}

/** What `runJobTask` takes from a task's options, besides the work. */
export function taskRun(
  options: JobTaskOptions,
  plan: JobPlan,
  timing: LeaseTiming,
): Omit<RunTaskOptions, "work"> {
  return {
    store: options.target,
    plan,
    task: options.task,
    host: options.host ?? `${hostname()}:${process.pid}`,
    timing,
    ...(options.retryFailed ? { retryFailed: true } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

/**
 * `keyspread migrate backfill|validate --tasks N`: one task of an indexed job (Cloud Run jobs,
 * Kubernetes indexed Jobs, Google Cloud Batch), its index from the engine's environment or
 * `--task-index`; and `keyspread migrate status --to TABLE`, the job as the table holds it.
 * Shard events print as JSON lines on stderr (the engines' log collectors read them); the task's
 * result prints as JSON on stdout; exit status 1 when a shard failed or differences were found.
 */
import type { Command } from "commander";
import type { KeySchema } from "../../keys/types.js";
import { backfillJobTask } from "../../migrate/backfill-job.js";
import { type JobStatus, jobStatuses } from "../../migrate/job/job-status.js";
import type { JobTaskOptions } from "../../migrate/job/job-task.js";
import { routedStore } from "../../migrate/job/routed-store.js";
import type { JobEvent } from "../../migrate/job/run-task.js";
import { taskIdentity } from "../../migrate/job/task-identity.js";
import { validateJobTask } from "../../migrate/validate-job.js";
import { formatStoreAddress, openStoreAt, type StoreAddress } from "../../store/open/store-address.js";
import { fail, parsePositiveInt, wholeNumberIn, write } from "../shared/io.js";

export interface JobFlags {
  tasks?: number;
  taskIndex?: number;
  shards?: number;
  readAppProfile?: string;
  writeAppProfile?: string;
  leaseSeconds?: number;
  retryFailed?: boolean;
  logBatches?: boolean;
}

/** The flags of a job's task, on `migrate backfill` and `migrate validate`. */
export function withJobFlags(command: Command): Command {
  return command
    .option(
      "--tasks <n>",
      "run as one of N tasks of an indexed job sharing the plan, leases and checkpoints in the new table (Bigtable)",
      wholeNumberIn(1, 10_000),
    )
    .option(
      "--task-index <k>",
      "--tasks: this task's index, 0 ≤ K < N (default: CLOUD_RUN_TASK_INDEX, JOB_COMPLETION_INDEX or BATCH_TASK_INDEX)",
      wholeNumberIn(0, 9_999),
    )
    .option(
      "--shards <m>",
      "--tasks: shards in the plan (default 8× the task count)",
      wholeNumberIn(1, 100_000),
    )
    .option("--read-app-profile <profile>", "--tasks: read through this app profile (e.g. Data Boost)")
    .option("--write-app-profile <profile>", "--tasks: write through this app profile (e.g. low priority)")
    .option(
      "--lease-seconds <s>",
      "--tasks: how long a shard's lease lasts without renewal",
      parsePositiveInt,
      30,
    )
    .option("--retry-failed", "--tasks: claim shards an earlier attempt marked failed")
    .option("--log-batches", "--tasks: also log each batch a task writes (JSON lines on stderr)");
}

/** Job flags given without --tasks. */
export function jobFlagsWithoutTasks(flags: JobFlags): string[] {
  if (flags.tasks !== undefined) return [];
  return (["taskIndex", "shards", "readAppProfile", "writeAppProfile", "retryFailed", "logBatches"] as const)
    .filter((name) => flags[name] !== undefined)
    .map((name) => `--${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`);
}

interface JobInput extends JobFlags {
  from: StoreAddress;
  to: StoreAddress;
  fromSchema: KeySchema;
  toSchema: KeySchema;
}

/** Runs one task of a backfill job and prints its result. */
export async function runBackfillTask(
  input: JobInput & { batch: number; rate?: number; skipBadRows?: boolean },
): Promise<void> {
  await withJobStores(input, async (options) => {
    const result = await backfillJobTask({
      ...options,
      batchSize: input.batch,
      ...(input.rate === undefined ? {} : { rowsPerSecond: input.rate }),
      ...(input.skipBadRows ? { skipBadRows: true } : {}),
    });
    const { plan, ...rest } = result;
    await write(`${JSON.stringify({ task: options.task, shards: plan.shards, ...rest })}\n`);
    if (result.failed.length > 0) fail(`migrate backfill: ${result.failed.length} shard(s) failed`, false);
  });
}

/** Runs one task of a validate job and prints the job's summary as this task ends. */
export async function runValidateTask(input: JobInput): Promise<void> {
  await withJobStores(input, async (options) => {
    const { summary, ...rest } = await validateJobTask(options);
    await write(`${JSON.stringify({ task: options.task, ...rest, summary })}\n`);
    const differences = summary.differences?.count;
    if (differences === undefined)
      throw new Error(`migrate validate: the ${summary.kind} job's summary counts no differences`);
    if (rest.failed.length > 0) fail(`migrate validate: ${rest.failed.length} shard(s) failed`, false);
    else if (differences > 0) fail(`migrate validate: ${differences} difference(s)`, false);
  });
}

async function withJobStores(
  input: JobInput,
  run: (options: JobTaskOptions) => Promise<void>,
): Promise<void> {
  for (const address of [input.from, input.to]) {
    if (address.kind !== "bigtable") {
      throw new Error(
        `--tasks: ${formatStoreAddress(address)} is an embedded table, one process's own; an indexed job's tasks share Bigtable tables (run without --tasks on one machine)`,
      );
    }
  }
  const task = taskIdentity({ tasks: input.tasks, taskIndex: input.taskIndex });
  const source = await openStoreAt(input.from, { mustExist: true });
  try {
    const target = await openStoreAt(input.to);
    try {
      await run({
        source: routedStore(source, { read: input.readAppProfile }),
        sourceSchema: input.fromSchema,
        target: routedStore(target, { read: input.readAppProfile, write: input.writeAppProfile }),
        targetSchema: input.toSchema,
        task,
        ...(input.shards === undefined ? {} : { shards: input.shards }),
        timing: { leaseMs: (input.leaseSeconds ?? 30) * 1000 },
        ...(input.retryFailed ? { retryFailed: true } : {}),
        onEvent: logEvent(input.logBatches === true),
      });
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

function logEvent(batches: boolean): (event: JobEvent) => void {
  return (event) => {
    if (event.event === "writing" && !batches) return;
    process.stderr.write(`${JSON.stringify(event)}\n`);
  };
}

/** `migrate status --to TABLE [--from TABLE] [--json]`: the jobs the table holds. */
export async function runJobStatusCommand(options: {
  to: StoreAddress;
  from?: StoreAddress;
  json?: boolean;
}): Promise<void> {
  const store = await openStoreAt(options.to, { mustExist: true });
  let statuses: JobStatus[];
  try {
    statuses = await jobStatuses(store);
  } finally {
    await store.close();
  }
  if (statuses.length === 0)
    throw new Error(`${formatStoreAddress(options.to)} holds no backfill or validate job`);
  const { from } = options;
  if (from !== undefined) {
    const wanted = formatStoreAddress(from);
    const other = statuses.find(
      (status) => !status.source.endsWith(`/${from.table}`) && status.source !== wanted,
    );
    if (other)
      throw new Error(
        `${formatStoreAddress(options.to)}'s ${other.kind} job copies from ${other.source}, not ${wanted}`,
      );
  }
  await write(options.json ? `${JSON.stringify(statuses)}\n` : statuses.map(describeStatus).join(""));
}

function describeStatus(status: JobStatus): string {
  const { shards } = status;
  const lines = [
    `${status.kind}: ${status.source} → ${status.target} (since ${status.createdAt})`,
    `  shards: ${shards.done} done, ${shards.claimed} claimed, ${shards.free} free, ${shards.failed} failed of ${shards.total}`,
    `  rows: ${status.rows}${status.rowsPerSecond === null ? "" : ` at ${status.rowsPerSecond} rows/s`}${status.etaSeconds === null ? "" : `, ETA ${status.etaSeconds} s`}`,
    ...(status.slowest === null
      ? []
      : [
          `  slowest: shard ${status.slowest.shard} (task ${status.slowest.task}, ${status.slowest.host}) at ${status.slowest.rowsPerSecond} rows/s`,
        ]),
    ...status.failures.map((f) => `  failed: shard ${f.shard}: ${f.reason}`),
    ...(status.differences === undefined ? [] : [`  differences: ${status.differences.count}`]),
  ];
  return `${lines.join("\n")}\n`;
}

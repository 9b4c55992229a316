/**
 * A backfill as one task of an indexed job (Cloud Run jobs, Kubernetes indexed Jobs, Cloud
 * Batch): the shard plan, leases and every shard's checkpoint live in the target table (job/), so
 * N tasks on N machines copy the table together, a task retried on an empty disk resumes its
 * shard's checkpoint, and a dead or frozen task's shards go to the others. Each cell is copied
 * with its source version (see backfill.ts), so a copy landing late never hides a newer write.
 */

import { backfillTable, checkTables } from "./backfill.js";
import type { BackfillCheckpoint } from "./checkpoint.js";
import { openJobPlan } from "./job/job-plan.js";
import type { JobPlan } from "./job/job-rows.js";
import { type JobTaskOptions, leaseTiming, taskRun, wantedJob } from "./job/job-task.js";
import { runJobTask, type TaskResult } from "./job/run-task.js";
import { jobShardPlan, shardRange, splitKeyspace } from "./shards.js";

export interface BackfillJobOptions extends JobTaskOptions {
  /** Rows per batch (and per checkpoint). Default 1000. */
  batchSize?: number;
  /** At most this many rows per second, for this task. */
  rowsPerSecond?: number;
  skipBadRows?: boolean;
}

export interface BackfillJobTaskResult extends TaskResult {
  plan: JobPlan;
  /** Source rows this task read and wrote, over the shards it worked. */
  rowsRead: number;
  rowsWritten: number;
  rowsSkipped: number;
}

export async function backfillJobTask(options: BackfillJobOptions): Promise<BackfillJobTaskResult> {
  const { source, sourceSchema, target, targetSchema } = options;
  const timing = leaseTiming(options.timing);
  await checkTables(options);
  const plan = await openJobPlan(
    target,
    wantedJob(options, "backfill"),
    async (shards) => ({
      sourceSplitKeys: (await splitKeyspace(source, shards)).map((key) => key.toString("hex")),
    }),
    timing.now,
  );
  const sourcePlan = jobShardPlan(plan, "source");
  const totals = { rowsRead: 0, rowsWritten: 0, rowsSkipped: 0 };
  const result = await runJobTask({
    ...taskRun(options, plan, timing),
    work: async (shard, held) => {
      const number = { index: shard.index + 1, count: plan.shards };
      const before = shard.progress?.detail as BackfillCheckpoint | undefined;
      let last = before;
      const copied = await backfillTable({
        source,
        sourceSchema,
        target,
        targetSchema,
        shard: { ...number, range: shardRange(sourcePlan, number) },
        checkpointStore: {
          name: `${target.name} (job shard ${shard.index})`,
          load: async () => last,
          save: async (state) => {
            await held.checkpoint({
              rows: state.rowsRead,
              complete: false,
              updatedAt: timing.now(),
              detail: state,
            });
            last = structuredClone(state);
          },
        },
        beforeWrite: async () => {
          await held.ensureHeld();
          options.onEvent?.({
            event: "writing",
            kind: "backfill",
            shard: shard.index,
            task: options.task.index,
            at: timing.now(),
          });
        },
        signal: held.signal,
        estimateSamples: 0,
        ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
        ...(options.rowsPerSecond === undefined ? {} : { rowsPerSecond: options.rowsPerSecond }),
        ...(options.skipBadRows ? { skipBadRows: true } : {}),
      });
      totals.rowsRead += copied.rowsReadThisRun;
      totals.rowsWritten += copied.rowsWritten - (before?.rowsWritten ?? 0);
      totals.rowsSkipped += copied.rowsSkipped - (before?.rowsSkipped ?? 0);
      return { rows: copied.rowsRead, detail: last ?? null };
    },
  });
  return { ...result, plan, ...totals };
}

/**
 * Validation as one task of an indexed job, as the backfill runs (backfill-job.ts): tasks claim
 * shards under leases, each shard is checked row by row both ways (validate-shard.ts, each side
 * cut by its own sampled keys), its report is written to the shard's row, and the job's summary
 * (`jobStatuses`, `migrate status`) adds them up.
 */
import { checkSameFields } from "./backfill.js";
import { openJobPlan } from "./job/job-plan.js";
import { readShards } from "./job/job-rows.js";
import { type JobStatus, summarize } from "./job/job-status.js";
import { type JobTaskOptions, leaseTiming, taskRun, wantedJob } from "./job/job-task.js";
import { runJobTask, type TaskResult } from "./job/run-task.js";
import { jobShardPlan, shardRange, splitKeyspace } from "./shards.js";
import { validateMigrationShard } from "./validate-shard.js";

/** Differences kept in a shard's row (the count is always whole). */
const LISTED_PER_SHARD = 100;

export interface ValidateJobTaskResult extends TaskResult {
  /** The whole job as the table holds it when this task finished (complete once every task is). */
  summary: JobStatus;
}

export async function validateJobTask(options: JobTaskOptions): Promise<ValidateJobTaskResult> {
  const { source, sourceSchema, target, targetSchema } = options;
  const timing = leaseTiming(options.timing);
  checkSameFields(sourceSchema, targetSchema);
  const keysOf = async (store: typeof source, shards: number) =>
    (await splitKeyspace(store, shards)).map((key) => key.toString("hex"));
  const plan = await openJobPlan(
    target,
    wantedJob(options, "validate"),
    async (shards) => ({
      sourceSplitKeys: await keysOf(source, shards),
      targetSplitKeys: await keysOf(target, shards),
    }),
    timing.now,
  );
  const [sourcePlan, targetPlan] = [jobShardPlan(plan, "source"), jobShardPlan(plan, "target")];
  const result = await runJobTask({
    ...taskRun(options, plan, timing),
    work: async (shard) => {
      const number = { index: shard.index + 1, count: plan.shards };
      const report = await validateMigrationShard({
        source,
        sourceSchema,
        target,
        targetSchema,
        shard: number,
        sourceRange: shardRange(sourcePlan, number),
        targetRange: shardRange(targetPlan, number),
      });
      return {
        rows: report.source.rows + report.target.rows,
        detail: { ...report, differences: report.differences.slice(0, LISTED_PER_SHARD) },
      };
    },
  });
  const summary = summarize(plan, await readShards(target, "validate", plan.shards), timing.now());
  return { ...result, summary };
}

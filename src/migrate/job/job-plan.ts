/**
 * The job's plan, written once to the target table by whichever task starts first (a conditional
 * mutation: the first write wins, every other task reads it), so every task cuts the table the
 * same way. A table takes one migration: a plan for another source or schemas, or with another
 * shard count asked for, is refused, naming the one that exists.
 */
import { RetryableStoreError, type Store } from "../../store/store.js";
import { encodeJson, JOB_ROW_KEY, type JobKind, type JobPlan, readPlans } from "./job-rows.js";

export interface WantedJob {
  kind: JobKind;
  source: string;
  target: string;
  sourceFingerprint: string;
  targetFingerprint: string;
  /** Asked for explicitly (`--shards`); otherwise an existing plan's count is taken. */
  shards?: number | undefined;
  tasks: number;
}

/** Shards per task when the count is not given: a dead or slow task then holds an eighth of its share. */
export const SHARDS_PER_TASK = 8;

/** What this run wants that differs from the job the table holds. */
export type JobConflict =
  | { field: "source" | "sourceFingerprint" | "targetFingerprint"; wanted: string }
  | { field: "shards"; wanted: number };

export class JobConflictError extends Error {
  override readonly name = "JobConflictError";
  constructor(
    readonly target: string,
    readonly existing: JobPlan,
    readonly conflict: JobConflict,
  ) {
    const why =
      conflict.field === "shards"
        ? `this run asks for ${conflict.wanted} shards (drop --shards to use the plan's ${existing.shards})`
        : `this run's ${conflict.field} is ${conflict.wanted}`;
    super(
      `${target} already holds a ${existing.kind} job (${describePlan(existing)}); ${why}. One table takes one migration: finish or remove that one first`,
    );
  }
}

export function describePlan(plan: JobPlan): string {
  return `from ${plan.source} (schema ${plan.sourceFingerprint}) to schema ${plan.targetFingerprint}, ${plan.shards} shards, created ${new Date(plan.createdAt).toISOString()}`;
}

/**
 * The job's plan: the one in the table when it matches `wanted`, else a new one (its split keys
 * from `split`) written unless another task wrote one first.
 */
export async function openJobPlan(
  store: Store,
  wanted: WantedJob,
  split: (shards: number) => Promise<Pick<JobPlan, "sourceSplitKeys" | "targetSplitKeys">>,
  now: () => number = Date.now,
): Promise<JobPlan> {
  const existing = await readPlans(store);
  checkNoConflict(store.name, existing, wanted);
  const same = existing[wanted.kind];
  if (same !== undefined) return same;
  const shards = wanted.shards ?? wanted.tasks * SHARDS_PER_TASK;
  const plan: JobPlan = {
    version: 1,
    kind: wanted.kind,
    source: wanted.source,
    target: wanted.target,
    sourceFingerprint: wanted.sourceFingerprint,
    targetFingerprint: wanted.targetFingerprint,
    shards,
    ...(await split(shards)),
    tasks: wanted.tasks,
    createdAt: now(),
  };
  const mutation = {
    type: "put" as const,
    key: JOB_ROW_KEY,
    cells: new Map([[wanted.kind, encodeJson(plan)]]),
  };
  let written = false;
  try {
    written = await store.checkAndMutate(mutation, { qualifier: wanted.kind, equals: null });
  } catch (error) {
    // A lost answer: the row tells whether ours (or another task's) landed.
    if (!(error instanceof RetryableStoreError)) throw error;
  }
  if (written) return plan;
  const raced = await readPlans(store);
  checkNoConflict(store.name, raced, wanted);
  const winner = raced[wanted.kind];
  if (winner === undefined) throw new Error(`${store.name}: could not write the ${wanted.kind} job's plan`);
  return winner;
}

function checkNoConflict(target: string, plans: Partial<Record<JobKind, JobPlan>>, wanted: WantedJob): void {
  for (const plan of Object.values(plans)) {
    for (const field of ["source", "sourceFingerprint", "targetFingerprint"] as const) {
      if (plan[field] !== wanted[field]) {
        throw new JobConflictError(target, plan, { field, wanted: wanted[field] });
      }
    }
  }
  const same = plans[wanted.kind];
  if (same !== undefined && wanted.shards !== undefined && same.shards !== wanted.shards) {
    throw new JobConflictError(target, same, { field: "shards", wanted: wanted.shards });
  }
}

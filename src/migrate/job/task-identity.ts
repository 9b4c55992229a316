/**
 * Which task of an indexed job this process is, from the engine that started it:
 * - Cloud Run jobs set CLOUD_RUN_TASK_INDEX and CLOUD_RUN_TASK_COUNT
 *   (https://cloud.google.com/run/docs/create-jobs, https://cloud.google.com/run/docs/container-contract);
 * - Kubernetes Jobs with `completionMode: Indexed` set JOB_COMPLETION_INDEX, not the count
 *   (https://kubernetes.io/docs/tasks/job/indexed-parallel-processing-static): the count is `--tasks`;
 * - Google Cloud Batch sets BATCH_TASK_INDEX and BATCH_TASK_COUNT
 *   (https://cloud.google.com/batch/docs/create-run-job, "predefined environment variables").
 * Flags win over the environment. Indexes are 0-based, as every engine numbers them.
 */

export type TaskEngine = "cloud-run" | "kubernetes" | "batch" | "flags";

export interface TaskIdentity {
  /** 0-based. */
  index: number;
  count: number;
  /** Where the index came from. */
  engine: TaskEngine;
}

const MAX_TASKS = 10_000;

const ENGINES: { engine: TaskEngine; index: string; count?: string }[] = [
  { engine: "cloud-run", index: "CLOUD_RUN_TASK_INDEX", count: "CLOUD_RUN_TASK_COUNT" },
  { engine: "kubernetes", index: "JOB_COMPLETION_INDEX" },
  { engine: "batch", index: "BATCH_TASK_INDEX", count: "BATCH_TASK_COUNT" },
];

/**
 * The task's index and count: `--task-index`/`--tasks` when given, else the engine's variables
 * (`--tasks` still sets the count where the engine gives none, and must agree where it does).
 */
export function taskIdentity(
  flags: { tasks?: number | undefined; taskIndex?: number | undefined },
  env: NodeJS.ProcessEnv = process.env,
): TaskIdentity {
  const found = ENGINES.find(({ index }) => (env[index] ?? "") !== "");
  const counted =
    found?.count === undefined || (env[found.count] ?? "") === ""
      ? undefined
      : { variable: found.count, count: whole(env, found.count, 1, MAX_TASKS) };
  if (flags.tasks !== undefined && counted !== undefined && flags.tasks !== counted.count) {
    throw new TaskIdentityError({ code: "tasks-disagree", tasks: flags.tasks, ...counted });
  }
  const count = flags.tasks ?? counted?.count;
  if (count === undefined) {
    throw new TaskIdentityError({
      code: "tasks-missing",
      ...(found === undefined ? {} : { indexVariable: found.index }),
    });
  }
  checkWhole("--tasks", count, 1, MAX_TASKS);
  if (flags.taskIndex !== undefined) {
    checkWhole("--task-index", flags.taskIndex, 0, count - 1);
    return { index: flags.taskIndex, count, engine: "flags" };
  }
  if (found === undefined) {
    throw new TaskIdentityError({
      code: "no-task-index",
      count,
      variables: ENGINES.map((e) => e.index),
    });
  }
  return { index: whole(env, found.index, 0, count - 1), count, engine: found.engine };
}

function whole(env: NodeJS.ProcessEnv, name: string, min: number, max: number): number {
  const text = env[name] ?? "";
  const value = /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
  checkWhole(name, value, min, max, text);
  return value;
}

function checkWhole(name: string, value: number, min: number, max: number, shown: unknown = value): void {
  if (!(Number.isSafeInteger(value) && value >= min && value <= max)) {
    throw new TaskIdentityError({ code: "not-in-range", field: name, value: shown, min, max });
  }
}

export type TaskIdentityProblem =
  | { code: "tasks-disagree"; tasks: number; variable: string; count: number }
  /** `indexVariable`: the engine gives this task's index but no count. */
  | { code: "tasks-missing"; indexVariable?: string }
  | { code: "no-task-index"; count: number; variables: readonly string[] }
  | { code: "not-in-range"; field: string; value: unknown; min: number; max: number };

/** A task whose index or count the flags and the engine's variables do not give, or give wrongly. */
export class TaskIdentityError extends Error {
  override readonly name = "TaskIdentityError";
  readonly code: TaskIdentityProblem["code"];

  constructor(readonly problem: TaskIdentityProblem) {
    super(describeTaskProblem(problem));
    this.code = problem.code;
  }
}

function describeTaskProblem(problem: TaskIdentityProblem): string {
  switch (problem.code) {
    case "tasks-disagree":
      return `--tasks is ${problem.tasks} but ${problem.variable} is ${problem.count}; drop --tasks or make them agree`;
    case "tasks-missing":
      return problem.indexVariable === undefined
        ? "--tasks is missing: how many tasks the job runs"
        : `--tasks is missing: ${problem.indexVariable} gives this task's index but not how many tasks the job runs`;
    case "no-task-index":
      return `no task index: pass --task-index K (0 ≤ K < ${problem.count}), or run under an engine that sets ${problem.variables.join(", ")}`;
    case "not-in-range":
      return `${problem.field} is ${JSON.stringify(problem.value)}; allowed: an integer from ${problem.min} to ${problem.max}`;
  }
}

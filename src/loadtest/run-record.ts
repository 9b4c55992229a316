/**
 * A load test's run as its table holds it, in keyspread's reserved range (which no data read
 * reaches): the run row (what was asked — scenario, design, scale, tasks, duration — written once by
 * whichever task starts first, a conditional mutation), and one row per task share with its lease
 * and progress (the indexed job's shard rows, kind `loadtest`). `loadtest status` reads them back;
 * a task restarted with the same index resumes from its share's progress.
 */
import { createHash } from "node:crypto";
import { encodeJson, readShards, type ShardRecord, shardRowKey } from "../migrate/job/job-rows.js";
import { RetryableStoreError, type Store } from "../store/store.js";
import { RESERVED_PREFIX } from "../table/schema-guard.js";
import { CLUSTER_ROW_KEY } from "./cluster-watch.js";

export const RUN_ROW_KEY = Buffer.concat([RESERVED_PREFIX, Buffer.from("keyspread:loadtest")]);
const RUN = "run";
/** Set by the task that created the table, before anything else is written (tasks may race to open the run). */
const CREATED = "created-table";

/** The cell every row a load test writes carries: its run id (so its rows are told from others' and deleted alone). */
export const LOADTEST_CELL = "keyspread-loadtest";

export interface LoadTestRun {
  version: 1;
  /** Unique per run: the marker every row it writes carries. */
  runId: string;
  scenario: string;
  /** Hash of the scenario's validated content: tasks started from different files are refused. */
  scenarioHash: string;
  design: string;
  schemaFingerprint: string;
  scale: number;
  tasks: number;
  durationS: number;
  /** The test instance's nodes (the prediction's cluster). */
  nodes: number;
  /** Whether this run created the table (`loadtest delete` then drops the table; else only the run's rows). */
  createdTable: boolean;
  /** Epoch ms: the run's clock starts here (arrival patterns keep the wall clock). */
  startedAt: number;
}

export type WantedRun = Omit<LoadTestRun, "version" | "runId" | "startedAt" | "createdTable">;

export class LoadTestConflictError extends Error {
  override readonly name = "LoadTestConflictError";
  constructor(
    readonly table: string,
    readonly existing: LoadTestRun,
    /** The first run parameter this task asks differently. */
    readonly field: keyof WantedRun,
    readonly wanted: unknown,
  ) {
    super(
      `${table} already holds load test ${existing.runId} (scenario ${existing.scenario}, design ${existing.design}, scale ${existing.scale}, ${existing.tasks} tasks, ${existing.durationS} s, started ${new Date(existing.startedAt).toISOString()}); this task asks ${field} ${JSON.stringify(wanted)}. Run \`keyspread loadtest delete\` first, or use another table`,
    );
  }
}

export function scenarioHash(scenario: unknown): string {
  return createHash("sha256").update(JSON.stringify(scenario)).digest("hex").slice(0, 16);
}

export async function readRun(store: Store): Promise<LoadTestRun | undefined> {
  const row = await store.get(RUN_ROW_KEY);
  if (row === undefined) return undefined;
  const cell = row.cells.get(RUN);
  if (cell === undefined) return undefined;
  return { ...(JSON.parse(cell.toString()) as LoadTestRun), createdTable: row.cells.has(CREATED) };
}

/** Records that a load test created the table (so `loadtest delete` drops it rather than its rows). */
export async function markTableCreated(store: Store): Promise<void> {
  const { failed } = await store.write([
    { type: "put", key: RUN_ROW_KEY, cells: new Map([[CREATED, Buffer.from("1")]]) },
  ]);
  const [failure] = failed;
  if (failure !== undefined)
    throw new Error(`${store.name}: could not record that the load test created it: ${failure.reason}`);
}

/** The run's own rows in the reserved range: its run row, its cluster samples and its shares' rows. */
export function runRowKeys(run: LoadTestRun): Buffer[] {
  return [
    RUN_ROW_KEY,
    CLUSTER_ROW_KEY,
    ...Array.from({ length: run.tasks }, (_, index) => shardRowKey("loadtest", index)),
  ];
}

/** The run in the table when it matches `wanted`, else a new one written unless another task wrote one first. */
export async function openRun(
  store: Store,
  wanted: WantedRun,
  now: () => number = Date.now,
): Promise<LoadTestRun> {
  const existing = await readRun(store);
  if (existing !== undefined) return checkSame(store.name, existing, wanted);
  const run: Omit<LoadTestRun, "createdTable"> = {
    version: 1,
    runId: `lt-${now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
    ...wanted,
    startedAt: now(),
  };
  const mutation = { type: "put" as const, key: RUN_ROW_KEY, cells: new Map([[RUN, encodeJson(run)]]) };
  try {
    await store.checkAndMutate(mutation, { qualifier: RUN, equals: null });
  } catch (error) {
    // A lost answer: the row tells whether ours (or another task's) landed.
    if (!(error instanceof RetryableStoreError)) throw error;
  }
  // Ours, or the one another task wrote first (then it must ask the same).
  const opened = await readRun(store);
  if (opened === undefined) throw new Error(`${store.name}: could not write the load test's run row`);
  return checkSame(store.name, opened, wanted);
}

function checkSame(table: string, run: LoadTestRun, wanted: WantedRun): LoadTestRun {
  for (const field of [
    "scenarioHash",
    "design",
    "schemaFingerprint",
    "scale",
    "tasks",
    "durationS",
    "nodes",
  ] as const) {
    if (run[field] !== wanted[field]) throw new LoadTestConflictError(table, run, field, wanted[field]);
  }
  return run;
}

export function readShares(store: Store, run: LoadTestRun): Promise<ShardRecord[]> {
  return readShards(store, "loadtest", run.tasks);
}

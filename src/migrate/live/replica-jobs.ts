/**
 * The backfill and the validation of a live re-keying whose record is held in the table several
 * `keyspread serve` replicas write. They run in the caller (every replica holds the tables, none is
 * the one to run them) while every live replica writes both tables: the backfill resumes from its
 * checkpoint when run again; the validation compares each writer's rows below that replica's own cut.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { openStoreAt, parseStoreAddress } from "../../store/open/store-address.js";
import type { Store } from "../../store/store.js";
import { SaltedTable } from "../../table/salted-table.js";
import { backfillTable } from "../backfill.js";
import { LiveMigrationError } from "./live-migration-error.js";
import { dualWritePeriod, replicasBehind } from "./migration-advance.js";
import { writesBoth } from "./migration-phases.js";
import { type MigrationRecord, schemaOf, type ValidationJob } from "./migration-record.js";
import { requireTableRecord } from "./record-table.js";
import type { ListFollowingReplicas } from "./replicas-summary.js";
import type { ServiceValidationResult } from "./service-jobs.js";
import { readReplicaReports, updateTableRecord } from "./table-migration-record.js";

/** Both tables of the record, open with their schemas. */
export interface MigrationTables {
  old: SaltedTable;
  new: SaltedTable;
}

/**
 * Compares the tables over each writer's rows below its cut (the service's validation job, which
 * the caller passes in); writes the report's JSON lines to `job.report`.
 */
export type ValidateBelowCuts = (
  tables: MigrationTables,
  job: ValidationJob & { report: string },
  cuts: ReadonlyMap<string, number>,
  signal: AbortSignal,
) => Promise<{ differences: number; summary: Record<string, unknown> }>;

export interface ReplicaJobContext {
  /** The table holding the record (`migration` names it). */
  store: Store;
  migration: string;
  followingReplicas: ListFollowingReplicas;
}

export interface ReplicaBackfillResult {
  migration: string;
  reverse: boolean;
  state: "complete";
  rowsRead: number;
  rowsWritten: number;
  checkpoint: string;
}

/** The record and its dual-write period, once every live replica writes both tables. */
async function dualWriting(
  { store, migration, followingReplicas }: ReplicaJobContext,
  job: "backfill" | "validation",
) {
  const record = await requireTableRecord(store, migration);
  const live = await followingReplicas(store);
  const behind = replicasBehind(record, live);
  const period = dualWritePeriod(record);
  if (!writesBoth(record.phase) || period === undefined || live.length === 0 || behind.length > 0) {
    throw new LiveMigrationError({
      code: "not-dual-writing",
      migration,
      job,
      phase: record.phase,
      revision: record.revision,
      live: live.length,
      behind,
    });
  }
  return { record, period };
}

async function openPair(record: MigrationRecord, migration: string) {
  const oldStore = await openStoreAt(parseStoreAddress(record.old.address), { mustExist: true });
  const newStore = await openStoreAt(parseStoreAddress(record.new.address), { mustExist: true }).catch(
    async (error: unknown) => {
      await oldStore.close();
      throw error;
    },
  );
  return {
    old: await SaltedTable.open(oldStore, schemaOf(record.old, migration)),
    new: await SaltedTable.open(newStore, schemaOf(record.new, migration)),
    close: async () => {
      await oldStore.close();
      await newStore.close();
    },
  };
}

/** Copies the old table into the new one (`reverse`: back), resuming from its checkpoint. */
export async function backfillForReplicas(
  context: ReplicaJobContext,
  options: { batch: number; rate?: number; reverse?: boolean; checkpoint?: string },
  onProgress: (rowsRead: number) => void = () => {},
): Promise<ReplicaBackfillResult> {
  const { migration } = context;
  const { record, period } = await dualWriting(context, "backfill");
  const reverse = options.reverse ?? false;
  // One checkpoint per dual-write period and direction: after a rollback and back, a new backfill.
  const checkpoint = resolve(
    options.checkpoint ??
      join(
        ".keyspread",
        `backfill-${parseStoreAddress(migration).table}-migration-${period}${reverse ? "-reverse" : ""}.json`,
      ),
  );
  await mkdir(dirname(checkpoint), { recursive: true });
  const tables = await openPair(record, migration);
  try {
    const [source, target] = reverse ? [tables.new, tables.old] : [tables.old, tables.new];
    const { rowsRead, rowsWritten } = await backfillTable({
      source: source.store,
      sourceSchema: source.schema,
      target: target.store,
      targetSchema: target.schema,
      checkpointFile: checkpoint,
      batchSize: options.batch,
      ...(options.rate === undefined ? {} : { rowsPerSecond: options.rate }),
      estimateSamples: 0,
      durable: true,
      onProgress: (progress) => onProgress(progress.rowsRead),
    });
    return { migration, reverse, state: "complete", rowsRead, rowsWritten, checkpoint };
  } finally {
    await tables.close();
  }
}

/**
 * Compares the tables over each writer's rows below that replica's cut (`completeBelow`, which it
 * publishes about once a second) and records the outcome for `advance` (reads move only after 0
 * differences); returns the report (each difference, then the summary).
 */
export async function validateForReplicas(
  context: ReplicaJobContext,
  options: { sample: number; rows: number; ranges: number },
  validate: ValidateBelowCuts,
): Promise<ServiceValidationResult> {
  const { store, migration } = context;
  const { record, period } = await dualWriting(context, "validation");
  // Cuts read after every live replica applied dual-write: below each, that writer's rows are in
  // both tables (or the backfill's). A stopped replica's last report holds its last cut: rows it
  // may have written to one table only before it died are left out until it restarts and replays.
  const cuts = new Map<string, number>();
  for (const [replica, report] of await readReplicaReports(store)) cuts.set(replica, report.completeBelow);
  const id = randomBytes(6).toString("hex");
  const requestedAt = new Date().toISOString();
  const job = {
    id,
    state: "running" as const,
    sample: options.sample,
    rowsPerEntity: options.rows,
    ranges: options.ranges,
    dualWriteFrom: period,
    report: join(tmpdir(), `keyspread-validation-${id}.jsonl`),
    requestedAt,
    updatedAt: requestedAt,
  };
  const tables = await openPair(record, migration);
  let outcome: Awaited<ReturnType<ValidateBelowCuts>>;
  try {
    outcome = await validate(tables, job, cuts, new AbortController().signal);
  } finally {
    await tables.close();
  }
  await updateTableRecord(store, (latest) => {
    if (latest === undefined || latest.revision !== record.revision) return latest;
    latest.validation = {
      ...job,
      state: "complete",
      differences: outcome.differences,
      summary: outcome.summary,
      updatedAt: new Date().toISOString(),
    };
    return latest;
  });
  return { report: await readFile(job.report, "utf8"), differences: outcome.differences };
}

/**
 * `keyspread migrate begin|advance|status|backfill|validate --migration bigtable:TABLE`: a live
 * re-keying whose record is held in the table that several `keyspread serve` replicas write
 * (`table-migration-record.ts`). `advance` waits until every live replica in the table's registry
 * has applied the phase, and names those that have not. The backfill and the validation run in
 * this command (every replica holds the tables, none is the one to run them): the backfill resumes
 * from its checkpoint when run again; the validation compares each writer's rows below that
 * replica's own cut.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { backfillTable } from "../../migrate/backfill.js";
import {
  advanceMigration,
  describeBehind,
  dualWritePeriod,
  type FollowingReplica,
  replicasBehind,
} from "../../migrate/live/migration-advance.js";
import { type MigrationPhase, writesBoth } from "../../migrate/live/migration-phases.js";
import { type MigrationRecord, schemaOf } from "../../migrate/live/migration-record.js";
import { requireTableRecord, withRecordTable } from "../../migrate/live/record-table.js";
import {
  readReplicaReports,
  readTableRecord,
  updateTableRecord,
} from "../../migrate/live/table-migration-record.js";
import { followingReplicas } from "../../serve/migration/following-replicas.js";
import { runValidation } from "../../serve/migration/migration-jobs.js";
import { openStoreAt, parseStoreAddress } from "../../store/open/store-address.js";
import type { Store } from "../../store/store.js";
import { SaltedTable } from "../../table/salted-table.js";
import { fail, write } from "../shared/io.js";
import { counterBar } from "../shared/progress.js";

const POLL_MS = 200;

export interface AdvanceOptions {
  migration: string;
  from: MigrationPhase;
  to: MigrationPhase;
  force?: boolean;
  wait: number;
}

/** `advance` on a table-held record: every live replica must have applied the current phase, then waits until each applied the next. */
export async function advanceReplicas(options: AdvanceOptions): Promise<void> {
  const { migration } = options;
  await withRecordTable(migration, async (store) => {
    try {
      const replicas = await followingReplicas(store);
      let already = false;
      const record = (await updateTableRecord(store, (current) => {
        const result = advanceMigration(current, options.from, options.to, {
          force: options.force,
          file: migration,
          replicas,
        });
        already = result.already;
        return result.record;
      }))!;
      if (already)
        process.stderr.write(
          `keyspread: migration ${migration} is already in ${options.to}; nothing changed\n`,
        );
      const live =
        options.wait > 0 ? await waitForReplicas(store, migration, record, options.wait) : replicas;
      await write(`${JSON.stringify(replicasSummary(migration, record, live))}\n`);
    } catch (error) {
      // Refused or not applied by every replica: the record's state and each replica behind, for scripts.
      const record = await readTableRecord(store).catch(() => undefined);
      if (record !== undefined) {
        const live = await followingReplicas(store);
        const behind = replicasBehind(record, live).map(({ replica }) => replica);
        await write(`${JSON.stringify({ ...replicasSummary(migration, record, live), behind })}\n`);
      }
      throw error;
    }
  });
}

/** Waits until every live replica reports `record`'s revision applied; fails naming those that have not, after `seconds`. */
async function waitForReplicas(
  store: Store,
  migration: string,
  record: MigrationRecord,
  seconds: number,
): Promise<FollowingReplica[]> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const current = await requireTableRecord(store, migration);
    if (current.revision !== record.revision) {
      throw new Error(
        `migration ${migration} moved on to revision ${current.revision} (${current.phase}) while waiting; see keyspread migrate status`,
      );
    }
    const live = await followingReplicas(store);
    const behind = replicasBehind(record, live);
    if (live.length > 0 && behind.length === 0) return live;
    if (Date.now() > deadline) {
      throw new Error(
        `recorded ${record.phase} (revision ${record.revision}), but ${
          live.length === 0
            ? "no live replica writes the table (is keyspread serve running with --migration naming it?)"
            : `${behind.length} of ${live.length} live replica(s) have not applied it within ${seconds} s: ${describeBehind(record, behind)}`
        }. A replica applies it when it starts; do not go on with the runbook until every one has (keyspread migrate status)`,
      );
    }
    await sleep(POLL_MS);
  }
}

export function replicasSummary(
  migration: string,
  record: MigrationRecord,
  live: readonly FollowingReplica[],
) {
  return {
    migration,
    phase: record.phase,
    revision: record.revision,
    old: record.old.address,
    new: record.new.address,
    applied: live.length > 0 && replicasBehind(record, live).length === 0,
    replicas: live.map(({ replica, host, pid, report }) => ({
      replica,
      host,
      pid,
      ...(report
        ? {
            revision: report.revision,
            phase: report.phase,
            applied: report.applied,
            completeBelow: report.completeBelow,
            ...(report.error === undefined ? {} : { error: report.error }),
          }
        : {}),
    })),
  };
}

/** The record, its tables and every live replica's cut, once every live replica writes both tables. */
async function dualWriting(store: Store, migration: string, what: string) {
  const record = await requireTableRecord(store, migration);
  const live = await followingReplicas(store);
  const behind = replicasBehind(record, live);
  const period = dualWritePeriod(record);
  if (!writesBoth(record.phase) || period === undefined || live.length === 0 || behind.length > 0) {
    throw new Error(
      `${what} runs while every live replica writes both tables (dual-write or reads-on-new, applied); migration ${migration} is in ${record.phase}` +
        (live.length === 0
          ? " (no live replica)"
          : behind.length > 0
            ? ` (${describeBehind(record, behind)})`
            : ""),
    );
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

/** `migrate backfill --migration bigtable:…`: copies the old table into the new one (`reverse`: back), resuming from its checkpoint. */
export async function backfillForReplicas(
  migration: string,
  options: { batch: number; rate?: number; reverse?: boolean; checkpoint?: string },
): Promise<void> {
  await withRecordTable(migration, async (store) => {
    const { record, period } = await dualWriting(store, migration, "a backfill");
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
    const bar = counterBar("backfill");
    try {
      const [source, target] = reverse ? [tables.new, tables.old] : [tables.old, tables.new];
      const result = await backfillTable({
        source: source.store,
        sourceSchema: source.schema,
        target: target.store,
        targetSchema: target.schema,
        checkpointFile: checkpoint,
        batchSize: options.batch,
        ...(options.rate === undefined ? {} : { rowsPerSecond: options.rate }),
        estimateSamples: 0,
        durable: true,
        onProgress: (progress) => bar.update(progress.rowsRead),
      });
      bar.stop();
      const { rowsRead, rowsWritten } = result;
      await write(
        `${JSON.stringify({ migration, reverse, state: "complete", rowsRead, rowsWritten, checkpoint })}\n`,
      );
    } finally {
      bar.stop();
      await tables.close();
    }
  });
}

/**
 * `migrate validate --migration bigtable:…`: compares the tables over each writer's rows below that
 * replica's cut (`completeBelow`, which it publishes about once a second), records the outcome for
 * `advance` (reads move only after 0 differences) and prints each difference and the summary.
 */
export async function validateForReplicas(
  migration: string,
  options: { sample: number; rows: number; ranges: number },
): Promise<void> {
  await withRecordTable(migration, async (store) => {
    const { record, period } = await dualWriting(store, migration, "a live validation");
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
    let outcome: Awaited<ReturnType<typeof runValidation>>;
    try {
      outcome = await runValidation(tables, job, cuts, new AbortController().signal);
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
    await write(await readFile(job.report, "utf8"));
    if (outcome.differences > 0) fail(`migrate validate: ${outcome.differences} difference(s)`, false);
  });
}

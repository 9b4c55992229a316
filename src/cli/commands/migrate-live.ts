/**
 * `keyspread migrate begin|advance|status --migration FILE`, and `backfill|validate --migration
 * FILE`: a live re-keying of the table a running `keyspread serve` writes (the fleet incident's runbook with
 * the service taking part). The record file is the only channel: these commands change it under
 * its lock and wait for the service to report back in it.
 */
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Command } from "commander";
import type { KeySchema } from "../../keys/types.js";
import { checkSameFields } from "../../migrate/backfill.js";
import { advanceMigration } from "../../migrate/live/migration-advance.js";
import { parsePhase, writesBoth } from "../../migrate/live/migration-phases.js";
import {
  type MigrationRecord,
  type MigrationTable,
  readMigrationRecord,
  serviceGone,
  tableRef,
  updateMigrationRecord,
} from "../../migrate/live/migration-record.js";
import { checkServiceRekeying } from "../../migrate/live/service-rekeying.js";
import { updateTableRecord } from "../../migrate/live/table-migration-record.js";
import { followingReplicas } from "../../serve/migration/following-replicas.js";
import {
  absoluteAddress,
  formatStoreAddress,
  openStoreAt,
  parseStoreAddress,
  type StoreAddress,
} from "../../store/store-address.js";
import { SaltedTable } from "../../table/salted-table.js";
import { argumentOf, fail, guarded, wholeNumberIn, write } from "../shared/io.js";
import { counterBar } from "../shared/progress.js";
import {
  type AdvanceOptions,
  advanceReplicas,
  isTableRecord,
  replicasSummary,
  requireTableRecord,
  withRecordTable,
} from "./migrate-replicas.js";
import { runJobStatusCommand } from "./migrate-tasks.js";

const POLL_MS = 100;
const MIGRATION_OPTION =
  "the migration record the service follows: a file, or bigtable:TABLE (held in the table its replicas write)";

export function registerLiveMigrationCommands(
  migrate: Command,
  withPair: (command: Command) => Command,
  loadPair: LoadPair,
): void {
  withPair(migrate.command("begin"))
    .description(
      "record a live re-keying of the table a running `keyspread serve` writes (its --migration file; phase single)",
    )
    .requiredOption("--migration <file>", MIGRATION_OPTION)
    .action(guarded((options: PairInput & { migration: string }) => runBeginCommand(options, loadPair)));

  migrate
    .command("advance")
    .description(
      "move a live re-keying one phase (single → dual-write → reads-on-new → writes-on-new → done, or one back) and wait until the service applied it",
    )
    .requiredOption("--migration <file>", MIGRATION_OPTION)
    .requiredOption("--from <phase>", "the phase the migration is in (checked)", argumentOf(parsePhase))
    .requiredOption("--to <phase>", "the next or the previous phase", argumentOf(parsePhase))
    .option(
      "--force",
      "skip the guards (the service applied the phase; a clean validation before reads move)",
    )
    .option(
      "--wait <seconds>",
      "how long to wait for the service to apply it (0: do not wait)",
      wholeNumberIn(0, 86_400),
      60,
    )
    .action(guarded(runAdvanceCommand));

  migrate
    .command("status")
    .description(
      "print a live re-keying's record (--migration), or the backfill/validate job a new table holds (--to)",
    )
    .option("--migration <file>", "the migration record")
    .option("--to <store>", "the new table of an indexed job", argumentOf(parseStoreAddress))
    .option(
      "--from <store>",
      "--to: the old table (checked against the job's)",
      argumentOf(parseStoreAddress),
    )
    .option("--json", "--to: print JSON for scripts")
    .action(guarded(runStatusCommand));
}

type LoadPair = (options: PairInput) => Promise<{ fromSchema: KeySchema; toSchema: KeySchema }>;

async function runBeginCommand(
  options: PairInput & { migration: string },
  loadPair: LoadPair,
): Promise<void> {
  const record = await begin(options, loadPair);
  await write(`${JSON.stringify(summary(options.migration, record))}\n`);
}

async function runAdvanceCommand(options: AdvanceOptions): Promise<void> {
  const file = options.migration;
  if (isTableRecord(file)) return advanceReplicas(options);
  let already = false;
  const record = (await updateMigrationRecord(file, (current) => {
    const result = advanceMigration(current, options.from, options.to, {
      force: options.force,
      file,
      serviceRunning: (service) => !serviceGone(service),
    });
    already = result.already;
    return result.record;
  }))!;
  if (already)
    process.stderr.write(`keyspread: migration ${file} is already in ${options.to}; nothing changed\n`);
  const applied = options.wait > 0 ? await waitForService(file, record.revision, options.wait) : record;
  await write(`${JSON.stringify(summary(file, applied))}\n`);
}

async function runStatusCommand(
  options: { migration?: string } & Parameters<typeof runJobStatusCommand>[0],
): Promise<void> {
  if (options.migration === undefined) {
    if (options.to === undefined)
      throw new Error("migrate status: name a --migration FILE or a job's --to TABLE");
    return runJobStatusCommand(options);
  }
  if (isTableRecord(options.migration)) {
    const { migration } = options;
    await withRecordTable(migration, async (store) => {
      const record = await requireTableRecord(store, migration);
      const { replicas } = replicasSummary(migration, record, await followingReplicas(store));
      await write(`${JSON.stringify({ ...record, replicas })}\n`);
    });
    return;
  }
  const record = await readMigrationRecord(options.migration);
  if (record === undefined) throw new Error(`no migration record ${options.migration}`);
  await write(`${JSON.stringify(record)}\n`);
}

export interface PairInput {
  from: StoreAddress;
  fromSchema: string;
  to: StoreAddress;
  toSchema: string;
}

async function begin(
  options: PairInput & { migration: string },
  loadPair: LoadPair,
): Promise<MigrationRecord> {
  const file = options.migration;
  const { fromSchema, toSchema } = await loadPair(options);
  checkSameFields(fromSchema, toSchema);
  checkServiceRekeying(fromSchema, toSchema);
  const old = tableRef(formatStoreAddress(absoluteAddress(options.from)), fromSchema);
  const next = tableRef(formatStoreAddress(absoluteAddress(options.to)), toSchema);
  const same = (record: MigrationRecord) =>
    record.old.address === old.address &&
    record.old.fingerprint === old.fingerprint &&
    record.new.address === next.address &&
    record.new.fingerprint === next.fingerprint;
  if (isTableRecord(file)) {
    if (
      options.from.kind !== "bigtable" ||
      old.address !== formatStoreAddress(absoluteAddress(parseStoreAddress(file)))
    )
      throw new Error(
        `--migration ${file}: a record held in a table lives in the table the replicas write, --from ${old.address}`,
      );
    await checkNewTable(options.to, toSchema);
    return withRecordTable(file, async (store) => {
      const record = await updateTableRecord(store, (current) => {
        if (current !== undefined) {
          if (same(current)) return current;
          throw differentMigration(file, current);
        }
        return begun(old, next);
      });
      return record!;
    });
  }
  const existing = await readMigrationRecord(file);
  if (existing !== undefined) {
    if (same(existing)) return existing;
    throw differentMigration(file, existing);
  }
  await checkNewTable(options.to, toSchema);
  return (await updateMigrationRecord(file, (record) => {
    if (record !== undefined) {
      if (same(record)) return record;
      throw differentMigration(file, record);
    }
    return begun(old, next);
  }))!;
}

const begun = (old: MigrationTable, next: MigrationTable): MigrationRecord => ({
  format: "keyspread-migration/1",
  old,
  new: next,
  phase: "single",
  revision: 0,
  history: [],
});

/** The new table must exist already, recording the new schema (keyspread table create). */
async function checkNewTable(address: StoreAddress, schema: KeySchema): Promise<void> {
  const store = await openStoreAt(address, { mustExist: true });
  try {
    await SaltedTable.open(store, schema);
  } finally {
    await store.close();
  }
}

function differentMigration(file: string, record: MigrationRecord): Error {
  return new Error(
    `migration ${file} already moves ${record.old.address} → ${record.new.address} (phase ${record.phase}); finish it, or use another --migration file`,
  );
}

/** Waits until the service reports `revision` applied; fails with its error, or after `seconds`. */
async function waitForService(file: string, revision: number, seconds: number): Promise<MigrationRecord> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const record = (await readMigrationRecord(file))!;
    const service = record.service;
    if (record.revision !== revision) {
      throw new Error(
        `migration ${file} moved on to revision ${record.revision} (${record.phase}) while waiting; see keyspread migrate status`,
      );
    }
    if (service?.revision === revision && service.applied) return record;
    if (service?.revision === revision && service.error !== undefined) {
      throw new Error(
        `the service (pid ${service.pid}) cannot apply ${record.phase} yet: ${service.error}. It tries again every few seconds; fix the cause, or roll back with keyspread migrate advance --migration ${file} --from ${record.phase} --to ${record.history.at(-1)?.from}`,
      );
    }
    if (service !== undefined && serviceGone(service)) {
      throw new Error(
        `recorded ${record.phase} (revision ${revision}), but the service that followed ${file} (pid ${service.pid}) is not running; ` +
          "it applies the phase when it starts. Do not go on with the runbook until it has (keyspread migrate status)",
      );
    }
    if (Date.now() > deadline) {
      throw new Error(
        `recorded ${record.phase} (revision ${revision}), but no service applied it within ${seconds} s` +
          (service
            ? ` (last report from pid ${service.pid} on ${service.host} at ${service.updatedAt}, phase ${service.phase})`
            : " (no service has ever followed this file: is keyspread serve running with --migration naming it?)") +
          "; a service applies it when it starts. Do not go on with the runbook until it has (keyspread migrate status)",
      );
    }
    await sleep(POLL_MS);
  }
}

function summary(file: string, record: MigrationRecord) {
  const service = record.service;
  return {
    migration: file,
    phase: record.phase,
    revision: record.revision,
    old: record.old.address,
    new: record.new.address,
    applied: service?.revision === record.revision && service.applied,
    ...(service
      ? {
          service: {
            pid: service.pid,
            phase: service.phase,
            completeBelow: service.completeBelow,
            ...(service.dualWriteFrom === undefined ? {} : { dualWriteFrom: service.dualWriteFrom }),
          },
        }
      : {}),
  };
}

/** The record, when the service writes both tables in its current phase (the window for backfill and validate). */
async function dualWritingRecord(
  file: string,
  what: string,
): Promise<MigrationRecord & { service: { dualWriteFrom: number } }> {
  const record = await readMigrationRecord(file);
  if (record === undefined) throw new Error(`no migration record ${file}`);
  const service = record.service;
  if (
    !writesBoth(record.phase) ||
    service?.revision !== record.revision ||
    !service.applied ||
    service.dualWriteFrom === undefined
  ) {
    throw new Error(
      `${what} runs while the service writes both tables (dual-write or reads-on-new, applied); migration ${file} is in ${record.phase}${service?.revision === record.revision && service.applied ? "" : " (not applied by the service yet)"}`,
    );
  }
  return record as MigrationRecord & { service: { dualWriteFrom: number } };
}

/**
 * `migrate backfill --migration FILE`: asks the service to copy the old table into the new one
 * (resuming this dual-write period's backfill, if any), and follows it until it is complete.
 * Killing this command does not stop the backfill; stopping the service pauses it until it starts.
 */
export async function backfillThroughService(
  file: string,
  options: { batch: number; rate?: number; reverse?: boolean },
): Promise<void> {
  const record = await dualWritingRecord(file, "a backfill");
  const period = record.service.dualWriteFrom;
  const reverse = options.reverse ?? false;
  const now = new Date().toISOString();
  await updateMigrationRecord(file, (latest) => {
    if (latest === undefined) return latest;
    const job = latest.backfill;
    const ours = job?.dualWriteFrom === period && (job.reverse ?? false) === reverse;
    if (ours && job.state !== "failed") return latest;
    if (job !== undefined && !ours && (job.state === "requested" || job.state === "running")) {
      throw new Error(
        `migration ${file}: the service is running another backfill (${job.reverse ? "new → old" : "old → new"}, ${job.rowsRead} rows read); wait for it (keyspread migrate status)`,
      );
    }
    latest.backfill = {
      dualWriteFrom: period,
      ...(reverse ? { reverse } : {}),
      state: "requested",
      checkpoint: resolve(`${file}.backfill-${period}${reverse ? "-reverse" : ""}.json`),
      batchSize: options.batch,
      ...(options.rate === undefined ? {} : { rowsPerSecond: options.rate }),
      rowsRead: ours ? job.rowsRead : 0,
      rowsWritten: ours ? job.rowsWritten : 0,
      runs: ours ? job.runs : 0,
      requestedAt: now,
      updatedAt: now,
    };
    return latest;
  });
  const bar = counterBar("backfill");
  try {
    for (;;) {
      const job = (await readMigrationRecord(file))?.backfill;
      if (job?.dualWriteFrom !== period || (job.reverse ?? false) !== reverse)
        throw new Error(`migration ${file}: the backfill request went away`);
      bar.update(job.rowsRead);
      if (job.state === "failed") throw new Error(`the service's backfill failed: ${job.error}`);
      if (job.state === "complete") {
        bar.stop();
        const { state, rowsRead, rowsWritten, runs, checkpoint } = job;
        await write(
          `${JSON.stringify({ migration: file, reverse, state, rowsRead, rowsWritten, runs, checkpoint })}\n`,
        );
        return;
      }
      await sleep(POLL_MS);
    }
  } finally {
    bar.stop();
  }
}

/**
 * `migrate validate --migration FILE`: asks the service to compare the tables over the rows
 * written before its cut, waits, and prints each difference and the summary (exit 1 when any).
 */
export async function validateThroughService(
  file: string,
  options: { sample: number; rows: number; ranges: number },
): Promise<void> {
  await dualWritingRecord(file, "a live validation");
  const id = randomBytes(6).toString("hex");
  const now = new Date().toISOString();
  await updateMigrationRecord(file, (latest) => {
    if (latest === undefined) return latest;
    latest.validation = {
      id,
      state: "requested",
      sample: options.sample,
      rowsPerEntity: options.rows,
      ranges: options.ranges,
      requestedAt: now,
      updatedAt: now,
    };
    return latest;
  });
  for (;;) {
    const job = (await readMigrationRecord(file))?.validation;
    if (job?.id !== id)
      throw new Error(`migration ${file}: the validation was replaced by another (${job?.id})`);
    if (job.state === "failed") throw new Error(`the service's validation failed: ${job.error}`);
    if (job.state === "complete") {
      await write(await readFile(job.report!, "utf8"));
      if (job.differences! > 0) fail(`migrate validate: ${job.differences} difference(s)`, false);
      return;
    }
    await sleep(POLL_MS);
  }
}

/**
 * `keyspread migrate begin|advance|status --migration FILE`, and `backfill|validate --migration
 * FILE`: a live re-keying of the table a running `keyspread serve` writes (the fleet incident's runbook with
 * the service taking part). The record file is the only channel: these commands change it under
 * its lock and wait for the service to report back in it (the client half of the protocol is
 * `src/migrate/live/`; this file is its command line).
 */
import type { Command } from "commander";
import type { KeySchema } from "../../keys/types.js";
import { advanceLiveMigration } from "../../migrate/live/advance-live-migration.js";
import { beginLiveMigration } from "../../migrate/live/begin-live-migration.js";
import { parsePhase } from "../../migrate/live/migration-phases.js";
import { readMigrationRecord } from "../../migrate/live/migration-record.js";
import { migrationSummary } from "../../migrate/live/migration-summary.js";
import { isTableRecord, requireTableRecord, withRecordTable } from "../../migrate/live/record-table.js";
import {
  backfillThroughService as requestBackfill,
  validateThroughService as requestValidation,
} from "../../migrate/live/service-jobs.js";
import { followingReplicas } from "../../serve/migration/following-replicas.js";
import { parseStoreAddress, type StoreAddress } from "../../store/open/store-address.js";
import { argumentOf, fail, guarded, wholeNumberIn, write } from "../shared/io.js";
import { counterBar } from "../shared/progress.js";
import { type AdvanceOptions, advanceReplicas, replicasSummary } from "./migrate-replicas.js";
import { runJobStatusCommand } from "./migrate-tasks.js";

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
  const record = await beginLiveMigration({ ...options, ...(await loadPair(options)) });
  await write(`${JSON.stringify(migrationSummary(options.migration, record))}\n`);
}

async function runAdvanceCommand(options: AdvanceOptions): Promise<void> {
  const file = options.migration;
  if (isTableRecord(file)) return advanceReplicas(options);
  const { record, already } = await advanceLiveMigration({ ...options, waitSeconds: options.wait });
  if (already)
    process.stderr.write(`keyspread: migration ${file} is already in ${options.to}; nothing changed\n`);
  await write(`${JSON.stringify(migrationSummary(file, record))}\n`);
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

/**
 * `migrate backfill --migration FILE`: asks the service to copy the old table into the new one,
 * and follows it until it is complete. Killing this command does not stop the backfill; stopping
 * the service pauses it until it starts.
 */
export async function backfillThroughService(
  file: string,
  options: { batch: number; rate?: number; reverse?: boolean },
): Promise<void> {
  const bar = counterBar("backfill");
  try {
    const result = await requestBackfill(file, options, (rowsRead) => bar.update(rowsRead));
    bar.stop();
    await write(`${JSON.stringify(result)}\n`);
  } finally {
    bar.stop();
  }
}

/** `migrate validate --migration FILE`: prints the service's report (exit 1 when it found differences). */
export async function validateThroughService(
  file: string,
  options: { sample: number; rows: number; ranges: number },
): Promise<void> {
  const { report, differences } = await requestValidation(file, options);
  await write(report);
  if (differences > 0) fail(`migrate validate: ${differences} difference(s)`, false);
}

/**
 * `keyspread migrate begin|advance|status --migration FILE|bigtable:TABLE`, and
 * `backfill|validate --migration …`: a live re-keying of the table a running `keyspread serve`
 * writes (the fleet incident's runbook with the service taking part). The client half of the
 * protocol is `src/migrate/live/`; this file parses its arguments and prints its results. A record
 * file is followed by one service; a record held in a table (`bigtable:TABLE`) by every replica
 * that writes it, whose registry the service keeps (`followingReplicas`).
 */
import type { Command } from "commander";
import type { KeySchema } from "../../keys/types.js";
import {
  advanceLiveMigration,
  advanceReplicas,
  backfillForReplicas,
  backfillThroughService,
  beginLiveMigration,
  isTableRecord,
  LiveMigrationError,
  type MigrationPhase,
  migrationSummary,
  parsePhase,
  readMigrationRecord,
  replicasStanding,
  replicasSummary,
  requireTableRecord,
  type ServiceValidationResult,
  validateForReplicas,
  validateThroughService,
  withRecordTable,
} from "../../migrate/live/index.js";
import { followingReplicas } from "../../serve/migration/following-replicas.js";
import { runValidation } from "../../serve/migration/migration-jobs.js";
import { parseStoreAddress, type StoreAddress } from "../../store/open/store-address.js";
import { argumentOf, fail, guarded, wholeNumberIn, write } from "../shared/io.js";
import { counterBar } from "../shared/progress.js";
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

interface AdvanceOptions {
  migration: string;
  from: MigrationPhase;
  to: MigrationPhase;
  force?: boolean;
  wait: number;
}

async function runAdvanceCommand(options: AdvanceOptions): Promise<void> {
  const { migration } = options;
  const step = { ...options, waitSeconds: options.wait };
  const alreadyThere = () =>
    process.stderr.write(`keyspread: migration ${migration} is already in ${options.to}; nothing changed\n`);
  if (!isTableRecord(migration)) {
    const { record, already } = await advanceLiveMigration(step);
    if (already) alreadyThere();
    await write(`${JSON.stringify(migrationSummary(migration, record))}\n`);
    return;
  }
  await withRecordTable(migration, async (store) => {
    try {
      const { record, already, live } = await advanceReplicas({ ...step, store, followingReplicas });
      if (already) alreadyThere();
      await write(`${JSON.stringify(replicasSummary(migration, record, live))}\n`);
    } catch (error) {
      // Refused or not applied by every replica: the record's state and each replica behind, for scripts.
      const standing = await replicasStanding(store, migration, followingReplicas);
      if (standing !== undefined) await write(`${JSON.stringify(standing)}\n`);
      throw error;
    }
  });
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
  if (record === undefined) throw new LiveMigrationError({ code: "no-record", migration: options.migration });
  await write(`${JSON.stringify(record)}\n`);
}

export interface PairInput {
  from: StoreAddress;
  fromSchema: string;
  to: StoreAddress;
  toSchema: string;
}

/**
 * `migrate backfill --migration FILE|bigtable:TABLE`: a record file asks its service to copy the
 * old table into the new one and follows it until it is complete (killing this command does not
 * stop it; stopping the service pauses it). A table-held record: this command runs the backfill,
 * resuming from its checkpoint.
 */
export async function runLiveBackfill(
  migration: string,
  options: { batch: number; rate?: number; reverse?: boolean; checkpoint?: string },
): Promise<void> {
  const bar = counterBar("backfill");
  try {
    const progress = (rowsRead: number) => bar.update(rowsRead);
    const result = isTableRecord(migration)
      ? await withRecordTable(migration, (store) =>
          backfillForReplicas({ store, migration, followingReplicas }, options, progress),
        )
      : await backfillThroughService(migration, options, progress);
    bar.stop();
    await write(`${JSON.stringify(result)}\n`);
  } finally {
    bar.stop();
  }
}

/**
 * `migrate validate --migration FILE|bigtable:TABLE`: prints the validation's report, each
 * difference then the summary (exit 1 when it found differences). A table-held record: this
 * command compares each writer's rows below that replica's cut and records the outcome.
 */
export async function runLiveValidation(
  migration: string,
  options: { sample: number; rows: number; ranges: number },
): Promise<void> {
  const { report, differences }: ServiceValidationResult = isTableRecord(migration)
    ? await withRecordTable(migration, (store) =>
        validateForReplicas({ store, migration, followingReplicas }, options, runValidation),
      )
    : await validateThroughService(migration, options);
  await write(report);
  if (differences > 0) fail(`migrate validate: ${differences} difference(s)`, false);
}

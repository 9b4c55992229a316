/**
 * `keyspread migrate …`: re-key a table into a new one. Tables are named by store address
 * (`embedded:DIR/TABLE`, `bigtable:TABLE`, `bigtable:PROJECT/INSTANCE/TABLE`). Results print as
 * JSON on stdout; progress shows on stderr when it is a terminal. With `--migration FILE`, the
 * table is the one a running `keyspread serve` writes (`migrate-live.ts`).
 */
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { SingleBar } from "cli-progress";
import type { Command } from "commander";
import type { KeySchema } from "../../keys/types.js";
import { type BackfillProgress, backfillTable } from "../../migrate/backfill.js";
import { isTableRecord } from "../../migrate/live/record-table.js";
import { checkServiceRekeying } from "../../migrate/live/service-rekeying.js";
import { migrationPlan } from "../../migrate/plan.js";
import { SameTableError } from "../../migrate/same-table-error.js";
import { parseShard, type Shard, shardPlanFor, shardRange } from "../../migrate/shards.js";
import { type MigrationDifference, validateMigration } from "../../migrate/validate.js";
import { validateMigrationShard } from "../../migrate/validate-shard.js";
import {
  formatStoreAddress,
  namesSameTable,
  openStoreAt,
  parseStoreAddress,
  type StoreAddress,
} from "../../store/open/store-address.js";
import type { Store } from "../../store/store.js";
import {
  argumentOf,
  fail,
  guarded,
  parsePositiveInt,
  readSchemaFile,
  wholeNumberIn,
  write,
} from "../shared/io.js";
import { counterBar } from "../shared/progress.js";
import { registerMigrateJobCommand } from "./migrate-job.js";
import {
  type PairInput,
  registerLiveMigrationCommands,
  runLiveBackfill,
  runLiveValidation,
} from "./migrate-live.js";
import { type PlanSizingOptions, planSizing, withSizingOptions } from "./migrate-plan-sizing.js";
import {
  type JobFlags,
  jobFlagsWithoutTasks,
  runBackfillTask,
  runValidateTask,
  withJobFlags,
} from "./migrate-tasks.js";

type PairOptions = PairInput;

const ADDRESS_HELP =
  "embedded:DIR/TABLE, embedded:TABLE (in ./.keyspread), bigtable:TABLE or bigtable:PROJECT/INSTANCE/TABLE";

export function registerMigrateCommands(program: Command): void {
  const migrate = program
    .command("migrate")
    .description(
      "re-key a table into a new one: plan, backfill (resumable), validate; live under keyspread serve: begin, advance, status",
    );
  registerPlanCommand(migrate);
  registerShardsCommand(migrate);
  registerBackfillCommand(migrate);
  registerValidateCommand(migrate);
  registerLiveMigrationCommands(migrate, withPair, loadPair);
  registerMigrateJobCommand(migrate);
}

/** The two tables and their schemas, all required. */
function withPair(command: Command): Command {
  return command
    .requiredOption("--from <store>", `the old table: ${ADDRESS_HELP}`, argumentOf(parseStoreAddress))
    .requiredOption("--from-schema <file>", "the old table's key schema (.json, .yaml)")
    .requiredOption("--to <store>", "the new table, same forms as --from", argumentOf(parseStoreAddress))
    .requiredOption("--to-schema <file>", "the new table's key schema");
}

/** The pair, or (backfill, validate) `--migration FILE` naming a live re-keying whose record names the tables. */
function withPairOrMigration(command: Command, what: string): Command {
  return command
    .option("--from <store>", `the old table: ${ADDRESS_HELP}`, argumentOf(parseStoreAddress))
    .option("--from-schema <file>", "the old table's key schema (.json, .yaml)")
    .option("--to <store>", "the new table, same forms as --from", argumentOf(parseStoreAddress))
    .option("--to-schema <file>", "the new table's key schema")
    .option(
      "--migration <file>",
      `the record of a live re-keying of a running keyspread serve: the service ${what} (instead of --from … --to-schema)`,
    );
}

function registerPlanCommand(migrate: Command): void {
  withSizingOptions(withPair(migrate.command("plan")))
    .description(
      "print the cut-over runbook: create, dual-write, backfill, validate, cut reads, cut writes, delete",
    )
    .option(
      "--migration <file>",
      "the table is written by a running keyspread serve following this migration record: the runbook's steps are its commands",
    )
    .option(
      "--checkpoint <file>",
      "the backfill's checkpoint file (default: .keyspread/backfill-OLD-to-NEW.json)",
    )
    .option(
      "--rate <rows/s>",
      "rate limit to put in the backfill command; with --nodes, the rows/s one task copies (default 20,000, an assumption)",
      parsePositiveInt,
    )
    .option(
      "--retention-days <days>",
      "how long to keep the old table after writes move",
      parsePositiveInt,
      30,
    )
    .option(
      "--shards <n>",
      "backfill and validate in N parallel processes (one per machine), each its own shard",
      wholeNumberIn(1, 10_000),
    )
    .option("--json", "--nodes: print the table's volume and the migration's sizing as JSON")
    .action(guarded(runPlanCommand));
}

interface PlanOptions extends PairOptions, PlanSizingOptions {
  json?: boolean;
  checkpoint?: string;
  rate?: number;
  retentionDays: number;
  shards?: number;
  migration?: string;
}

async function runPlanCommand(options: PlanOptions): Promise<void> {
  const { fromSchema, toSchema } = await loadPair(options);
  if (options.migration !== undefined) checkServiceRekeying(fromSchema, toSchema);
  const sized = await planSizing(options.from, options);
  if (options.json) {
    if (!sized) throw new Error("--json prints the migration's sizing: give --nodes");
    await write(`${JSON.stringify({ volume: sized.volume, sizing: sized.sizing })}\n`);
    return;
  }
  await write(
    migrationPlan({
      ...(options.migration === undefined ? {} : { migrationFile: options.migration }),
      from: options.from,
      to: options.to,
      fromSchemaFile: options.fromSchema,
      toSchemaFile: options.toSchema,
      fromSchema,
      toSchema,
      checkpointFile: options.checkpoint ?? defaultCheckpoint(options),
      retentionDays: options.retentionDays,
      ...(options.rate === undefined ? {} : { rowsPerSecond: options.rate }),
      ...(options.shards === undefined || options.shards === 1
        ? {}
        : {
            sharded: {
              shards: options.shards,
              shardsFile: defaultShardsFile(options.from, options.shards),
              targetShardsFile: defaultShardsFile(options.to, options.shards),
            },
          }),
    }) + (sized ? `\n${sized.lines.join("\n")}\n` : ""),
  );
}

function registerShardsCommand(migrate: Command): void {
  migrate
    .command("shards")
    .description(
      "cut a table's key space into N ranges (from sampled keys) and write the shard plan every backfill/validate --shard process reads",
    )
    .requiredOption("--from <store>", `the table to split: ${ADDRESS_HELP}`, argumentOf(parseStoreAddress))
    .requiredOption("--shards <n>", "how many ranges", wholeNumberIn(1, 10_000))
    .option(
      "--out <file>",
      "the shard plan file (default: .keyspread/shards-TABLE-N.json); an existing one is kept",
    )
    .action(guarded(runShardsCommand));
}

async function runShardsCommand(options: {
  from: StoreAddress;
  shards: number;
  out?: string;
}): Promise<void> {
  const file = options.out ?? defaultShardsFile(options.from, options.shards);
  await mkdir(dirname(file), { recursive: true });
  const store = await openStoreAt(options.from, { mustExist: true });
  try {
    const plan = await shardPlanFor(file, store, options.shards);
    await write(`${JSON.stringify({ file, ...plan })}\n`);
  } finally {
    await store.close();
  }
}

function registerBackfillCommand(migrate: Command): void {
  withJobFlags(withPairOrMigration(migrate.command("backfill"), "copies (resuming after a restart)"))
    .description("copy every row of the old table into the new one under the new keys, resumably")
    .option(
      "--checkpoint <file>",
      "progress file; an existing one resumes (default: .keyspread/backfill-OLD-to-NEW.json)",
    )
    .option("--batch <rows>", "rows per batch and per checkpoint", parsePositiveInt, 1000)
    .option("--rate <rows/s>", "at most this many rows per second", parsePositiveInt)
    .option("--skip-bad-rows", "record rows the new schema cannot key and go on (default: stop at the first)")
    .option(
      "--reverse",
      "--migration: copy the new table into the old one (the rows it lacks after a rollback from writes-on-new)",
    )
    .option(
      "--shard <K/N>",
      "copy only shard K of N (run N processes, e.g. one per machine); each keeps its own checkpoint",
      argumentOf(parseShard),
    )
    .option(
      "--shards-file <file>",
      "--shard: the shard plan every process uses (default .keyspread/shards-OLD-N.json; created from sampled keys if missing — copy it to every machine)",
    )
    .action(guarded(runBackfillCommand));
}

type BackfillCommandOptions = MaybePair &
  ShardOptions &
  JobFlags & {
    checkpoint?: string;
    batch: number;
    rate?: number;
    skipBadRows?: boolean;
    reverse?: boolean;
  };

async function runBackfillCommand(given: BackfillCommandOptions): Promise<void> {
  if (given.reverse && given.migration === undefined)
    throw new Error("--reverse goes with --migration (otherwise swap --from and --to)");
  if (given.migration !== undefined) {
    // A table-held record: this command runs the backfill (with its own checkpoint).
    const inTable = isTableRecord(given.migration);
    refuseWithMigration(given, [
      ...(inTable ? [] : ["checkpoint"]),
      "shard",
      "shardsFile",
      "skipBadRows",
      "tasks",
    ]);
    await runLiveBackfill(given.migration, given);
    return;
  }
  const options = requirePair(given);
  const schemas = await loadPair(options);
  if (checkJobFlags(options, ["checkpoint", "shard", "shardsFile"])) {
    await runBackfillTask({ ...options, ...schemas });
    return;
  }
  const checkpointFile = options.checkpoint ?? defaultCheckpoint(options, options.shard);
  await mkdir(dirname(checkpointFile), { recursive: true });
  await withStores(options, (source, target) =>
    backfillPair(source, target, schemas, checkpointFile, options),
  );
}

/** Copies the old table (or the shard of it) into the new one and prints the result; exit status 1 when rows were skipped. */
async function backfillPair(
  source: Store,
  target: Store,
  { fromSchema, toSchema }: { fromSchema: KeySchema; toSchema: KeySchema },
  checkpointFile: string,
  options: BackfillCommandOptions & PairOptions,
): Promise<void> {
  const shard = options.shard && {
    ...options.shard,
    range: await shardRangeOf(
      source,
      options.shard,
      options.shardsFile ?? defaultShardsFile(options.from, options.shard.count),
    ),
  };
  const bar = backfillBar();
  try {
    const result = await backfillTable({
      source,
      sourceSchema: fromSchema,
      target,
      targetSchema: toSchema,
      checkpointFile,
      batchSize: options.batch,
      ...(options.rate === undefined ? {} : { rowsPerSecond: options.rate }),
      skipBadRows: options.skipBadRows ?? false,
      ...(shard ? { shard } : {}),
      // Sampling the keys costs a key-only pass; only a terminal shows the estimate.
      estimateSamples: process.stderr.isTTY ? 1000 : 0,
      onProgress: bar.update,
    });
    bar.stop();
    await write(
      `${JSON.stringify({ ...result, resumedFrom: result.resumedFrom?.toString("hex") ?? null, checkpoint: checkpointFile })}\n`,
    );
    if (result.rowsSkipped > 0)
      fail(`migrate backfill: ${result.rowsSkipped} rows could not be re-keyed; see "skipped"`, false);
  } finally {
    bar.stop();
  }
}

function registerValidateCommand(migrate: Command): void {
  withJobFlags(withPairOrMigration(migrate.command("validate"), "compares the rows written before its cut"))
    .description(
      "compare the tables: count and checksum per key range, latest-N of sampled entities; prints each difference",
    )
    .option(
      "--ranges <n>",
      "logical key ranges (of the first field) to checksum separately",
      parsePositiveInt,
      16,
    )
    .option(
      "--sample <n>",
      "entities to compare row by row (0: none)",
      wholeNumberIn(0, Number.MAX_SAFE_INTEGER),
      100,
    )
    .option("-n, --rows <n>", "rows per entity (latest-N)", parsePositiveInt, 100)
    .option(
      "--entity <fields>",
      "comma-separated fields naming an entity (default: those before the reverse timestamp)",
    )
    .option(
      "--shard <K/N>",
      "check only shard K of N, row by row both ways (run N processes; each row is checked once over all)",
      argumentOf(parseShard),
    )
    .option("--shards-file <file>", "--shard: the old table's shard plan (default as backfill's)")
    .option(
      "--to-shards-file <file>",
      "--shard: the new table's shard plan (default .keyspread/shards-NEW-N.json; created if missing)",
    )
    .action(guarded(runValidateCommand));
}

type ValidateCommandOptions = MaybePair &
  ShardOptions &
  JobFlags & {
    ranges: number;
    sample: number;
    rows: number;
    entity?: string;
    toShardsFile?: string;
  };

async function runValidateCommand(given: ValidateCommandOptions): Promise<void> {
  if (given.migration !== undefined) {
    refuseWithMigration(given, ["entity", "shard", "shardsFile", "toShardsFile", "tasks"]);
    await runLiveValidation(given.migration, given);
    return;
  }
  const options = requirePair(given);
  const { fromSchema, toSchema } = await loadPair(options);
  if (checkJobFlags(options, ["shard", "shardsFile", "toShardsFile", "entity"])) {
    await runValidateTask({ ...options, fromSchema, toSchema });
    return;
  }
  if (options.shard) {
    await validateOneShard(options, options.shard, fromSchema, toSchema);
    return;
  }
  await withStores(options, (source, target) =>
    reportValidation(
      (onProgress) =>
        validateMigration({
          source,
          sourceSchema: fromSchema,
          target,
          targetSchema: toSchema,
          ranges: options.ranges,
          sampleEntities: options.sample,
          rowsPerEntity: options.rows,
          ...(options.entity ? { entityFields: options.entity.split(",").map((f) => f.trim()) } : {}),
          onProgress,
        }),
      ({ differences, ranges, ...summary }) => ({
        differences,
        count: differences.length,
        summary: { ranges: ranges.length, ...summary },
      }),
    ),
  );
}

type MaybePair = Partial<PairOptions> & { migration?: string };

/** The four table options, each required without --migration. */
function requirePair<T extends MaybePair>(options: T): T & PairOptions {
  const missing = (["from", "fromSchema", "to", "toSchema"] as const).filter(
    (name) => options[name] === undefined,
  );
  if (missing.length > 0) {
    throw new Error(
      `missing ${missing.map(flagOf).join(", ")}: name both tables and their schemas, or a live re-keying's --migration FILE`,
    );
  }
  return options as T & PairOptions;
}

/** With --migration the record names the tables and the service does the work: table options would be ignored. */
function refuseWithMigration(options: MaybePair & object, alsoRefused: readonly string[]): void {
  const given = ["from", "fromSchema", "to", "toSchema", ...alsoRefused].filter(
    (name) => (options as Record<string, unknown>)[name] !== undefined,
  );
  if (given.length > 0) throw new FlagsWithMigrationError(given.map(flagOf));
}

/** Table options given with --migration, whose record names the tables (they would be ignored). */
export class FlagsWithMigrationError extends Error {
  override readonly name = "FlagsWithMigrationError";

  constructor(readonly flags: readonly string[]) {
    super(`--migration names the tables and the running service does the work; drop ${flags.join(", ")}`);
  }
}

/** Whether this run is a job's task (--tasks); job flags without it, or one-machine flags with it, are refused. */
function checkJobFlags(options: JobFlags & object, oneMachineFlags: readonly string[]): boolean {
  const stray = jobFlagsWithoutTasks(options);
  if (stray.length > 0) throw new Error(`${stray.join(", ")} go with --tasks (a task of an indexed job)`);
  if (options.tasks === undefined) return false;
  const given = oneMachineFlags.filter((name) => (options as Record<string, unknown>)[name] !== undefined);
  if (given.length > 0) {
    throw new Error(
      `--tasks keeps the plan and checkpoints in the new table; drop ${given.map(flagOf).join(", ")}`,
    );
  }
  return true;
}

function flagOf(name: string): string {
  return `--${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

/** Runs a validation with a progress bar, prints each difference then the summary; exit status 1 when any. */
async function reportValidation<R>(
  run: (onProgress: (rows: number) => void) => Promise<R>,
  summarize: (report: R) => { differences: MigrationDifference[]; count: number; summary: object },
): Promise<void> {
  const bar = counterBar("validate");
  let report: R;
  try {
    report = await run(bar.update);
  } finally {
    bar.stop();
  }
  const { differences, count, summary } = summarize(report);
  await write(differences.map((d) => `${toJson(d)}\n`).join(""));
  await write(`${toJson({ differences: count, ...summary })}\n`);
  if (count > 0) fail(`migrate validate: ${count} difference(s)`, false);
}

interface ShardOptions {
  shard?: Shard;
  shardsFile?: string;
}

/** The shard's source key range from the plan in `file` (written from `store`'s keys if missing). */
async function shardRangeOf(store: Store, shard: Shard, file: string) {
  await mkdir(dirname(file), { recursive: true });
  return shardRange(await shardPlanFor(file, store, shard.count), shard);
}

async function validateOneShard(
  options: PairOptions & ShardOptions & { toShardsFile?: string },
  shard: Shard,
  fromSchema: KeySchema,
  toSchema: KeySchema,
): Promise<void> {
  await withStores(options, async (source, target) => {
    const sourceRange = await shardRangeOf(
      source,
      shard,
      options.shardsFile ?? defaultShardsFile(options.from, shard.count),
    );
    const targetRange = await shardRangeOf(
      target,
      shard,
      options.toShardsFile ?? defaultShardsFile(options.to, shard.count),
    );
    await reportValidation(
      (onProgress) =>
        validateMigrationShard({
          source,
          sourceSchema: fromSchema,
          target,
          targetSchema: toSchema,
          shard,
          sourceRange,
          targetRange,
          onProgress,
        }),
      ({ differences, differenceCount, ...summary }) => ({ differences, count: differenceCount, summary }),
    );
  });
}

/** The two schemas of a migration, once it is clear the two tables differ (every migrate command). */
async function loadPair(options: PairInput): Promise<{ fromSchema: KeySchema; toSchema: KeySchema }> {
  if (namesSameTable(options.from, options.to)) throw new SameTableError(formatStoreAddress(options.from));
  return {
    fromSchema: await readSchemaFile(options.fromSchema),
    toSchema: await readSchemaFile(options.toSchema),
  };
}

/** Opens both tables, runs `action`, and closes them whatever happens. */
async function withStores(
  options: PairOptions,
  action: (source: Store, target: Store) => Promise<void>,
): Promise<void> {
  const source = await openStoreAt(options.from, { mustExist: true });
  try {
    const target = await openStoreAt(options.to);
    try {
      await action(source, target);
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

function defaultCheckpoint(options: PairOptions, shard?: Shard): string {
  const suffix = shard ? `-shard-${shard.index}-of-${shard.count}` : "";
  return join(".keyspread", `backfill-${options.from.table}-to-${options.to.table}${suffix}.json`);
}

function defaultShardsFile(table: StoreAddress, shards: number): string {
  return join(".keyspread", `shards-${table.table}-${shards}.json`);
}

/** Rows/s and an ETA from the share of sampled source keys done, on a terminal only. */
function backfillBar(): { update: (progress: BackfillProgress) => void; stop: () => void } {
  if (!process.stderr.isTTY) return { update: () => {}, stop: () => {} };
  const bar = new SingleBar({
    format: "backfill [{bar}] {percentage}% | {rows} rows | {rate} rows/s | ETA {eta_formatted}",
    stream: process.stderr,
    etaBuffer: 50,
  });
  const started = performance.now();
  let running = false;
  return {
    update(progress) {
      const payload = {
        rows: progress.rowsRead,
        rate: Math.round(progress.rowsReadThisRun / ((performance.now() - started) / 1000)),
      };
      const value = Math.round((progress.fractionDone ?? 0) * 1000);
      if (!running) bar.start(1000, value, payload);
      running = true;
      bar.update(value, payload);
    },
    stop: () => {
      if (running) bar.stop();
      running = false;
    },
  };
}

function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? v.toString() : v));
}

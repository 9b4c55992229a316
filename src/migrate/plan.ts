/**
 * The cut-over runbook for one re-keying (the fleet incident: "dual-write … compare latest-100 … cut reads
 * over, then writes, then delete the old table after the retention window"), with the exact
 * command for every step that has one. With `migrationFile`, the table is the one a running
 * `keyspread serve` writes, and the steps are the commands it follows (docs/migrate.md, Live).
 */
import type { KeySchema } from "../keys/types.js";
import { formatStoreAddress, type StoreAddress, tableCommandOptions } from "../store/open/store-address.js";
import { diffJson } from "../table/schema-guard.js";
import { checkSameFields } from "./backfill.js";

export interface MigrationPlanInput {
  from: StoreAddress;
  to: StoreAddress;
  fromSchemaFile: string;
  toSchemaFile: string;
  fromSchema: KeySchema;
  toSchema: KeySchema;
  /** Where the backfill records progress. */
  checkpointFile: string;
  /** How long the old table stays after writes move (its data's retention). Default 30 days. */
  retentionDays?: number;
  /** Backfill rate limit to print in the command; omitted: unlimited. */
  rowsPerSecond?: number;
  /** Backfill and validate in this many parallel processes (shards), with these shard plan files. */
  sharded?: ShardedRun;
  /** The migration record a running `keyspread serve` follows: the runbook of a live re-keying. */
  migrationFile?: string;
}

/** The backfill and validation in `shards` processes, each table cut once into a shard plan file. */
export interface ShardedRun {
  shards: number;
  shardsFile: string;
  targetShardsFile: string;
}

export function migrationPlan(input: MigrationPlanInput): string {
  const { fromSchema, toSchema } = input;
  checkSameFields(fromSchema, toSchema);
  const from = formatStoreAddress(input.from);
  const to = formatStoreAddress(input.to);
  const parts = {
    pair: pairOptions(input.from, input.fromSchemaFile, input.to, input.toSchemaFile),
    reversePair: pairOptions(input.to, input.toSchemaFile, input.from, input.fromSchemaFile),
    retention: input.retentionDays ?? 30,
    rate: input.rowsPerSecond === undefined ? "" : ` --rate ${input.rowsPerSecond}`,
  };
  const changes = diffJson(fromSchema.spec, toSchema.spec, "");
  const describe = (schema: KeySchema) =>
    `"${schema.spec.name}" (${schema.bucketCount === 1 ? "unsalted" : `${schema.bucketCount} buckets, ${schema.spec.salt?.hash ?? "xxh32"}`}, ${schema.fingerprint})`;
  const header = `Schema ${describe(fromSchema)} → ${describe(toSchema)}
${changes.map((change) => `  - ${change.replace("table has", "old").replace("schema has", "new")}`).join("\n") || "  (no change)"}`;
  const createStep = (clause = "") =>
    `1. Create the new table (records its schema;${clause} on Bigtable pre-split at the new salt's bucket boundaries).
   ${envFor(input.to)}keyspread table create --schema ${quote(input.toSchemaFile)} ${tableCommandOptions(input.to).map(quote).join(" ")}
`;
  if (input.migrationFile !== undefined)
    return livePlan(
      input,
      input.migrationFile,
      `# Re-keying ${from} → ${to} under a running keyspread serve

${header}
`,
      createStep(),
      parts,
    );
  const { pair, reversePair, retention, rate } = parts;

  return `# Re-keying ${from} → ${to}

${header}
Bigtable keys are immutable: the new keys go to a new table, filled by a resumable backfill while
the app writes to both tables.
A full-table read fans out over ${fromSchema.bucketCount} → ${toSchema.bucketCount} bucket range(s).

${createStep(" the backfill also does this if it is missing;")}
2. Turn dual-write on: deploy the writers with DualWriteTable, writing both tables; a failure on
   either side comes back with its side and rows, so retry or alert on it.
     const dual = new DualWriteTable(await SaltedTable.open(oldStore, oldSchema),
                                     await SaltedTable.open(newStore, newSchema));
     const { failed } = await dual.putMany(rows);
   Wait until every writer runs it: rows written from then on reach both tables.

${input.sharded === undefined ? backfillStep(input, pair, rate) : shardedBackfillStep(input, input.sharded, pair, rate)}
   A row updated in place while the backfill ran may hold the copy read before the update: run
   the backfill again with a new --checkpoint file (copies are idempotent), then validate again.
   A row deleted meanwhile may have been copied back: delete the extra rows validate names.

5. Cut reads over: point readers at the new table (SaltedTable.open(newStore, newSchema)); keep
   dual-write on. Rollback: point readers back.

6. Cut writes over: write only the new table. From here a rollback needs the reverse backfill:
   ${envFor(input.from, input.to)}keyspread migrate backfill ${reversePair} --checkpoint ${quote(`${input.checkpointFile}.reverse`)}

7. After the retention window (${retention} days with no reads of the old table), delete it:
   ${deleteCommand(input.from)}
`;
}

/** The runbook of a live re-keying: every step a command that changes the record the service follows. */
function livePlan(
  input: MigrationPlanInput,
  file: string,
  header: string,
  createStep: string,
  { pair, retention, rate }: { pair: string; retention: number; rate: string },
): string {
  const record = `--migration ${quote(file)}`;
  const advance = (from: string, to: string) =>
    `keyspread migrate advance ${record} --from ${from} --to ${to}`;
  const env = envFor(input.from, input.to);
  const embedded = input.from.kind === "embedded" || input.to.kind === "embedded";
  const newTable = input.to.table;
  return `${header}
${liveIntro(input, file, record)}
${createStep}
2. Record the migration (phase single: nothing changes yet).
   ${env}keyspread migrate begin ${record} ${pair}

3. Dual-write: every flush writes both tables, and a failure on either side keeps its log segment
   and retries that side. Returns once every row flushed before is in the old table.
   ${advance("single", "dual-write")}
   Rollback: ${advance("dual-write", "single")}
   (the new table then misses the rows written meanwhile: backfill again after the next dual-write)

4. Backfill the rows written before. The service copies them; a restarted service resumes from
   its checkpoint.
   keyspread migrate backfill ${record}${rate}${
     embedded
       ? ""
       : `
   Or, for a large table, in N processes on other machines (see docs/migrate.md, --shard):
   ${env}keyspread migrate backfill ${pair} --shard K/N --checkpoint ${quote(input.checkpointFile.replace(/(\.json)?$/, "-shard-K-of-N.json"))}${rate}`
   }

5. Validate: the service compares the tables over the rows of every log segment below its cut
   (rows written while it runs are left out): count and checksum per range of intervals, and the
   latest 100 rows of 100 sampled devices. Zero differences required: step 6 refuses otherwise.
   keyspread migrate validate ${record}

6. Cut reads over: device reads come from the new table; both tables are still written.
   ${advance("dual-write", "reads-on-new")}
   Rollback: ${advance("reads-on-new", "dual-write")}

7. Cut writes over: flushes write only the new table.
   ${advance("reads-on-new", "writes-on-new")}
   Rollback: ${advance("writes-on-new", "reads-on-new")}
   The old table then lacks the rows written meanwhile: before reads move back to it (step 6's
   rollback refuses until then), the service copies them back (idempotent), and validate:
   keyspread migrate backfill ${record} --reverse
   keyspread migrate validate ${record}

8. Done: the service lets go of the old table and never opens it again, even after a restart.
   ${advance("writes-on-new", "done")}

9. After the retention window (${retention} days with no reads of the old table), delete it:
   ${deleteCommand(input.from)}
   At a convenient restart, serve the new table directly: stop the service with SIGTERM (it flushes
   its log), then start it with --table ${quote(newTable)} and the new --buckets.
`;
}

/** How the service runs during a live re-keying, and the commands that write the schema files. */
function liveIntro(input: MigrationPlanInput, file: string, record: string): string {
  const interval = /^interval-(\d+)ms$/.exec(
    input.fromSchema.spec.segments.map((segment) => ("literal" in segment ? segment.literal : "")).join(""),
  )?.[1];
  const serve = [
    ...serveStoreOptions(input.from),
    "--buckets",
    String(input.fromSchema.bucketCount),
    ...(interval === undefined ? [] : ["--interval", `${interval}ms`]),
    "--migration",
    file,
  ];
  return `The service runs with the old table and follows ${file}:
   ${envFor(input.from)}keyspread serve ${serve.map(quote).join(" ")} …
(by default each service follows <dir>/<table>.migration.json). Every step below changes that
record under its lock and waits until the running service applied it: no restart, and no
acknowledged point is lost. keyspread migrate status ${record} shows where it stands; every
phase can be rolled back one step. The schema files are the service's row key:
   keyspread serve schema --buckets ${input.fromSchema.bucketCount}${interval === undefined ? "" : ` --interval ${interval}ms`} > ${quote(input.fromSchemaFile)}
   keyspread serve schema --buckets ${input.toSchema.bucketCount}${interval === undefined ? "" : ` --interval ${interval}ms`} > ${quote(input.toSchemaFile)}
`;
}

/** `keyspread serve`'s options for the table at `address`. */
function serveStoreOptions(address: StoreAddress): string[] {
  return address.kind === "embedded"
    ? ["--dir", address.directory, "--table", address.table]
    : ["--store", "bigtable", "--table", address.table];
}

function pairOptions(
  from: StoreAddress,
  fromSchemaFile: string,
  to: StoreAddress,
  toSchemaFile: string,
): string {
  return [
    `--from ${quote(formatStoreAddress(from))} --from-schema ${quote(fromSchemaFile)}`,
    `--to ${quote(formatStoreAddress(to))} --to-schema ${quote(toSchemaFile)}`,
  ].join(" ");
}

function backfillStep(input: MigrationPlanInput, pair: string, rate: string): string {
  const env = envFor(input.from, input.to);
  return `3. Backfill the rows written before (resumable: after a crash, run the same command again; it
   continues after the last checkpointed batch).
   ${env}keyspread migrate backfill ${pair} --checkpoint ${quote(input.checkpointFile)}${rate}${jobLine(input, pair)}

4. Validate: counts and checksums per key range, and latest-N of sampled entities, must show zero
   differences (rows written during the run can differ transiently: rerun to confirm).
   ${env}keyspread migrate validate ${pair}`;
}

/** Steps 3 and 4 in N processes: one shard each, on its own machine if need be. */
function shardedBackfillStep(
  input: MigrationPlanInput,
  sharded: ShardedRun,
  pair: string,
  rate: string,
): string {
  const n = sharded.shards;
  const env = envFor(input.from, input.to);
  const plan = quote(sharded.shardsFile);
  const targetPlan = quote(sharded.targetShardsFile);
  const checkpoint = quote(input.checkpointFile.replace(/(\.json)?$/, `-shard-K-of-${n}.json`));
  return `3. Backfill the rows written before in ${n} processes, one shard of the old table's key space
   each (e.g. one per machine). First cut the key space once, from sampled keys, and copy the plan
   file to every machine: every process must use the same cut, or rows between two shards are lost.
   ${envFor(input.from)}keyspread migrate shards --from ${quote(formatStoreAddress(input.from))} --shards ${n} --out ${plan}
   Then process K (K = 1…${n}) runs, with its own checkpoint (resumable: after a crash, run the same
   command again):
   ${env}keyspread migrate backfill ${pair} --shard K/${n} --shards-file ${plan} --checkpoint ${checkpoint}${rate}
   Each prints its counts; together they read the whole table once.${
     input.from.kind === "embedded" || input.to.kind === "embedded"
       ? "\n   (An embedded table opens in one process at a time: there, run the shards one after another.)"
       : ""
   }

4. Validate, also in ${n} processes: cut the new table's key space the same way, then process K checks
   its shard row by row in both directions (every old row under its new key, every new row under
   its old key); all ${n} must report zero differences (rows written during the run can differ
   transiently: rerun that shard to confirm).
   ${envFor(input.to)}keyspread migrate shards --from ${quote(formatStoreAddress(input.to))} --shards ${n} --out ${targetPlan}
   ${env}keyspread migrate validate ${pair} --shard K/${n} --shards-file ${plan} --to-shards-file ${targetPlan}
   The unsharded validate adds the fleet incident's latest-N comparison of sampled entities:
   ${env}keyspread migrate validate ${pair}`;
}

/** Both tables on Bigtable: the backfill can run as tasks of an engine, sharing its state through the new table. */
function jobLine(input: MigrationPlanInput, pair: string): string {
  if (input.from.kind !== "bigtable" || input.to.kind !== "bigtable") return "";
  return `
   For a large table, run it (and validate, --step validate) as N tasks of a Cloud Run job or a
   Kubernetes Indexed Job; --nodes sizes it first (docs/migrate.md):
   keyspread migrate job --engine cloud-run|kubernetes ${pair} --image IMAGE --tasks N`;
}

function envFor(...addresses: StoreAddress[]): string {
  const bigtable = addresses.find((a) => a.kind === "bigtable" && a.projectId);
  if (bigtable?.kind !== "bigtable") return "";
  return `KEYSPREAD_BIGTABLE_PROJECT=${bigtable.projectId} KEYSPREAD_BIGTABLE_INSTANCE=${bigtable.instanceId} `;
}

function deleteCommand(address: StoreAddress): string {
  if (address.kind === "embedded") return `rm -r ${quote(`${address.directory}/${address.table}`)}`;
  const project = address.projectId ?? "$KEYSPREAD_BIGTABLE_PROJECT";
  const instance = address.instanceId ?? "$KEYSPREAD_BIGTABLE_INSTANCE";
  return `gcloud bigtable instances tables delete ${address.table} --instance=${instance} --project=${project}`;
}

/** Shell-quotes a word when it needs it. */
function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * The cut-over runbook for one re-keying (seed 003: "dual-write … compare latest-100 … cut reads
 * over, then writes, then delete the old table after the retention window"), with the exact
 * command for every step that has one.
 */
import type { KeySchema } from "../keys/types.js";
import { diffJson } from "../table/schema-guard.js";
import { checkSameFields } from "./backfill.js";
import { formatStoreAddress, type StoreAddress, tableCommandOptions } from "./store-address.js";

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
  shards?: number;
  shardsFile?: string;
  targetShardsFile?: string;
}

export function migrationPlan(input: MigrationPlanInput): string {
  const { fromSchema, toSchema } = input;
  checkSameFields(fromSchema, toSchema);
  const from = formatStoreAddress(input.from);
  const to = formatStoreAddress(input.to);
  const pair = [
    `--from ${quote(from)} --from-schema ${quote(input.fromSchemaFile)}`,
    `--to ${quote(to)} --to-schema ${quote(input.toSchemaFile)}`,
  ].join(" ");
  const reversePair = [
    `--from ${quote(to)} --from-schema ${quote(input.toSchemaFile)}`,
    `--to ${quote(from)} --to-schema ${quote(input.fromSchemaFile)}`,
  ].join(" ");
  const changes = diffJson(fromSchema.spec, toSchema.spec, "");
  const retention = input.retentionDays ?? 30;
  const rate = input.rowsPerSecond === undefined ? "" : ` --rate ${input.rowsPerSecond}`;
  const describe = (schema: KeySchema) =>
    `"${schema.spec.name}" (${schema.bucketCount === 1 ? "unsalted" : `${schema.bucketCount} buckets, ${schema.spec.salt?.hash ?? "xxh32"}`}, ${schema.fingerprint})`;

  return `# Re-keying ${from} → ${to}

Schema ${describe(fromSchema)} → ${describe(toSchema)}
${changes.map((change) => `  - ${change.replace("table has", "old").replace("schema has", "new")}`).join("\n") || "  (no change)"}
Bigtable keys are immutable: the new keys go to a new table, filled by a resumable backfill while
the app writes to both tables.
A full-table read fans out over ${fromSchema.bucketCount} → ${toSchema.bucketCount} bucket range(s).

1. Create the new table (records its schema; the backfill also does this if it is missing).
   ${envFor(input.to)}keyspread table create --schema ${quote(input.toSchemaFile)} ${tableCommandOptions(input.to).map(quote).join(" ")}

2. Turn dual-write on: deploy the writers with DualWriteTable, writing both tables; a failure on
   either side comes back with its side and rows, so retry or alert on it.
     const dual = new DualWriteTable(await SaltedTable.open(oldStore, oldSchema),
                                     await SaltedTable.open(newStore, newSchema));
     const { failed } = await dual.putMany(rows);
   Wait until every writer runs it: rows written from then on reach both tables.

${input.shards === undefined ? backfillStep(input, pair, rate) : shardedBackfillStep(input, pair, rate)}
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

function backfillStep(input: MigrationPlanInput, pair: string, rate: string): string {
  const env = envFor(input.from, input.to);
  return `3. Backfill the rows written before (resumable: after a crash, run the same command again; it
   continues after the last checkpointed batch).
   ${env}keyspread migrate backfill ${pair} --checkpoint ${quote(input.checkpointFile)}${rate}

4. Validate: counts and checksums per key range, and latest-N of sampled entities, must show zero
   differences (rows written during the run can differ transiently: rerun to confirm).
   ${env}keyspread migrate validate ${pair}`;
}

/** Steps 3 and 4 in N processes: one shard each, on its own machine if need be. */
function shardedBackfillStep(input: MigrationPlanInput, pair: string, rate: string): string {
  const n = input.shards!;
  const env = envFor(input.from, input.to);
  const plan = quote(input.shardsFile!);
  const targetPlan = quote(input.targetShardsFile!);
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
   The unsharded validate adds seed 003's latest-N comparison of sampled entities:
   ${env}keyspread migrate validate ${pair}`;
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

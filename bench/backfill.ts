/**
 * bench:backfill — re-keying one Bigtable table (the fleet incident: unsalted → 16 buckets) on the emulator
 * with a 2 ms sleep per RPC standing in for the network: one backfill process against SHARDS
 * backfills of one shard each running at once (`migrate backfill --shard K/N`), in the same run,
 * alternating, best of ROUNDS. Every run must copy every row exactly once.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileSchema } from "../src/keys/schema.js";
import type { SchemaSpec } from "../src/keys/types.js";
import { backfillTable } from "../src/migrate/backfill.js";
import { shardPlanFor, shardRange } from "../src/migrate/shards.js";
import { BigtableStore } from "../src/store/bigtable.js";
import { SaltedTable } from "../src/table/salted-table.js";
import { startEmulator, stopEmulator } from "../test/emulator.js";

const ROWS = 40_000;
const SHARDS = 4;
const ROUNDS = 2;
const BATCH = 1000;

const metrics = (salt?: SchemaSpec["salt"]): SchemaSpec => ({
  version: 1,
  name: salt ? "metrics-salted" : "metrics",
  layout: "text",
  segments: [
    { field: "deviceId", codec: { type: "string" } },
    { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
  ],
  ...(salt ? { salt } : {}),
});
const from = compileSchema(metrics());
const to = compileSchema(metrics({ buckets: 16, fields: ["deviceId"] }));

// Our own instance: the latency is what makes one process wait on every round trip.
const address = startEmulator({ latency: "2ms", record: false });
process.env.BIGTABLE_EMULATOR_HOST = address;
const directory = await mkdtemp(join(tmpdir(), "keyspread-bench-backfill-"));
const stamp = Date.now().toString(36);
let tables = 0;
const newTable = () => BigtableStore.createTable({ tableId: `bench_backfill_${stamp}_${tables++}` });

try {
  const source = await newTable();
  const table = await SaltedTable.open(source, from, { create: true });
  for (let first = 0; first < ROWS; first += 5000) {
    const rows = Array.from({ length: 5000 }, (_, i) => ({
      values: { deviceId: `dev-${(first + i) % 997}`, ts: 1_700_000_000_000 + first + i },
      cells: { value: String(first + i) },
    }));
    const { failed } = await table.putMany(rows);
    if (failed.length > 0) throw new Error(`fill failed: ${failed[0]!.reason}`);
  }
  const plan = await shardPlanFor(join(directory, "shards.json"), source, SHARDS);

  /** Seconds to copy the source into a new table, as one process or as SHARDS shards at once. */
  const copy = async (sharded: boolean): Promise<number> => {
    const target = await newTable();
    const started = performance.now();
    const common = {
      source,
      sourceSchema: from,
      target,
      targetSchema: to,
      batchSize: BATCH,
      estimateSamples: 0,
    };
    const runs = sharded
      ? Array.from({ length: SHARDS }, (_, i) =>
          backfillTable({
            ...common,
            shard: { index: i + 1, count: SHARDS, range: shardRange(plan, { index: i + 1, count: SHARDS }) },
          }),
        )
      : [backfillTable(common)];
    const results = await Promise.all(runs);
    const seconds = (performance.now() - started) / 1000;
    await target.close();
    const copied = results.reduce((sum, r) => sum + r.rowsWritten, 0);
    if (copied !== ROWS)
      throw new Error(`${sharded ? "sharded" : "single"} backfill copied ${copied} of ${ROWS} rows`);
    console.log(
      `${sharded ? `${SHARDS} shards at once` : "one process"}: ${ROWS} rows in ${seconds.toFixed(2)} s`,
    );
    return seconds;
  };

  const single: number[] = [];
  const sharded: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    single.push(await copy(false));
    sharded.push(await copy(true));
  }
  await source.close();
  const [bestSingle, bestSharded] = [Math.min(...single), Math.min(...sharded)];
  console.log(
    `bench backfill: rows=${ROWS} shards=${SHARDS} single_rows_per_s=${Math.round(ROWS / bestSingle)} sharded_rows_per_s=${Math.round(ROWS / bestSharded)} speedup=${(bestSingle / bestSharded).toFixed(2)}`,
  );
} finally {
  stopEmulator(address);
  await rm(directory, { recursive: true, force: true });
}

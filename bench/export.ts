/**
 * bench:export — the fleet incident's 30-day dashboard (per-device hourly averages of one tenant) answered
 * by DuckDB over our day-partitioned Parquet export, against the baseline of scatter-gather range
 * scans on the embedded store (SaltedTable.scan over every bucket, aggregated in JS). Both answers
 * must agree. Each side's time is the median of three runs; the export itself is timed apart.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { SingleBar } from "cli-progress";
import { exportTable } from "../src/export/export-table.js";
import { compileSchema } from "../src/keys/schema.js";
import { EmbeddedStore } from "../src/store/embedded/embedded.js";
import { type PutRow, SaltedTable } from "../src/table/salted-table.js";

const TENANTS = 3;
const DEVICES_PER_TENANT = 20;
const DAYS = 30;
const POINTS_PER_DAY = 288; // every 5 minutes
const START = Date.UTC(2026, 9, 1);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const TENANT = "tenant-1";
const RUNS = 3;

const schema = compileSchema({
  version: 1,
  name: "metrics",
  layout: "text",
  segments: [
    { field: "tenant", codec: { type: "string" } },
    { field: "deviceId", codec: { type: "string" } },
    { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
  ],
  salt: { buckets: 16, fields: ["tenant", "deviceId"] },
});

type Answer = Map<string, number>;

const log = (message: string) => console.log(message);

async function fill(table: SaltedTable): Promise<number> {
  const total = TENANTS * DEVICES_PER_TENANT * DAYS * POINTS_PER_DAY;
  const bar = process.stderr.isTTY
    ? new SingleBar({ format: "writing {bar} {value}/{total} rows" })
    : undefined;
  bar?.start(total, 0);
  let batch: PutRow[] = [];
  let written = 0;
  for (let t = 0; t < TENANTS; t++) {
    for (let d = 0; d < DEVICES_PER_TENANT; d++) {
      for (let p = 0; p < DAYS * POINTS_PER_DAY; p++) {
        const ts = START + p * (DAY / POINTS_PER_DAY);
        const value = ((p * 7919 + d * 104_729 + t) % 10_000) / 100;
        batch.push({
          values: { tenant: `tenant-${t}`, deviceId: `dev-${d}`, ts },
          cells: { value: String(value) },
        });
        if (batch.length === 10_000) {
          written += await putAll(table, batch);
          batch = [];
          bar?.update(written);
        }
      }
    }
  }
  written += await putAll(table, batch);
  bar?.stop();
  return written;
}

async function putAll(table: SaltedTable, rows: PutRow[]): Promise<number> {
  const { failed } = await table.putMany(rows);
  if (failed.length > 0) throw new Error(`${failed.length} rows failed: ${failed[0]!.reason}`);
  return rows.length;
}

/** Baseline: scatter-gather scans of the tenant's rows over all buckets, averaged per device and hour in JS. */
async function scanAnswer(table: SaltedTable): Promise<Answer> {
  const sums = new Map<string, { sum: number; count: number }>();
  const end = START + DAYS * DAY;
  for await (const row of table.scan({ eq: { tenant: TENANT } })) {
    const ts = row.values.ts as number;
    if (ts < START || ts >= end) continue;
    const key = `${row.values.deviceId}|${ts - (ts % HOUR)}`;
    const entry = sums.get(key) ?? { sum: 0, count: 0 };
    entry.sum += Number(row.cells.get("value")!.toString());
    entry.count++;
    sums.set(key, entry);
  }
  return new Map([...sums].map(([key, { sum, count }]) => [key, sum / count]));
}

/** Ours: the same dashboard as SQL over the Parquet export, pruning partitions by day. */
async function duckdbAnswer(parquetDir: string): Promise<Answer> {
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  try {
    const first = new Date(START).toISOString().slice(0, 10);
    const last = new Date(START + (DAYS - 1) * DAY).toISOString().slice(0, 10);
    const reader = await connection.runAndReadAll(`
      SELECT deviceId, epoch_ms(date_trunc('hour', ts)) AS hour, avg(value) AS average
      FROM read_parquet('${parquetDir}/**/*.parquet', hive_partitioning = true)
      WHERE tenant = '${TENANT}' AND day BETWEEN DATE '${first}' AND DATE '${last}'
      GROUP BY ALL`);
    return new Map(reader.getRows().map(([device, hour, average]) => [`${device}|${hour}`, Number(average)]));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

async function medianSeconds(run: () => Promise<Answer>): Promise<{ seconds: number; answer: Answer }> {
  const times: number[] = [];
  let answer: Answer = new Map();
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    answer = await run();
    times.push((performance.now() - started) / 1000);
  }
  return { seconds: times.sort((a, b) => a - b)[Math.floor(RUNS / 2)]!, answer };
}

function checkAgree(duckdb: Answer, scan: Answer): void {
  const expected = DEVICES_PER_TENANT * DAYS * 24;
  if (scan.size !== expected || duckdb.size !== expected)
    throw new Error(
      `answers have ${duckdb.size} (duckdb) and ${scan.size} (scan) groups; expected ${expected}`,
    );
  for (const [key, average] of scan) {
    const other = duckdb.get(key);
    if (other === undefined || Math.abs(other - average) > 1e-9 * Math.max(1, Math.abs(average)))
      throw new Error(`answers differ at ${key}: duckdb ${other}, scan ${average}`);
  }
}

const directory = await mkdtemp(join(tmpdir(), "keyspread-bench-export-"));
try {
  const store = await EmbeddedStore.open({ directory, table: "metrics" });
  const table = await SaltedTable.open(store, schema, { create: true });
  const rows = await fill(table);
  const parquetDir = join(directory, "parquet");
  const exported = await exportTable({
    store,
    schema,
    parquetDir,
    cellColumns: [{ name: "value", type: "DOUBLE" }],
  });
  log(`export: ${exported.rows} rows, ${exported.days} days in ${exported.seconds.toFixed(2)} s`);
  if (exported.rows !== rows) throw new Error(`exported ${exported.rows} of ${rows} rows`);

  const scan = await medianSeconds(() => scanAnswer(table));
  log(
    `scan: ${TENANT}'s ${scan.answer.size} device-hours over ${DAYS} days in ${scan.seconds.toFixed(3)} s (median of ${RUNS})`,
  );
  const duckdb = await medianSeconds(() => duckdbAnswer(parquetDir));
  log(`duckdb: the same in ${duckdb.seconds.toFixed(3)} s (median of ${RUNS})`);
  checkAgree(duckdb.answer, scan.answer);
  await store.close();
  console.log(
    `bench export: duckdb_s=${duckdb.seconds.toFixed(3)} scan_s=${scan.seconds.toFixed(3)} speedup=${(scan.seconds / duckdb.seconds).toFixed(1)}`,
  );
} finally {
  await rm(directory, { recursive: true, force: true });
}

/**
 * bench:write — batched writes (ours: one `write` per 10k rows) against the baseline of one row
 * per `write`, on the embedded store and on the Bigtable emulator (started through
 * scripts/emulator.sh unless BIGTABLE_EMULATOR_HOST is set). 40-byte random keys (salted keys
 * spread like this), ~100-byte values.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SingleBar } from "cli-progress";
import { BigtableStore } from "../src/store/bigtable/bigtable.js";
import { EmbeddedStore } from "../src/store/embedded/embedded.js";
import type { Store, StoreMutation } from "../src/store/store.js";
import { startEmulator, stopEmulator } from "../test/emulator.js";

const BATCH = 10_000;
const CASES = {
  embeddedBatched: 1_000_000,
  embeddedSingle: 20_000,
  emulatorBatched: 50_000,
  emulatorSingle: 1_000,
};

const value = randomBytes(100);
const putOf = (key: Buffer): StoreMutation => ({ type: "put", key, cells: new Map([["v", value]]) });

/** Rows per second writing `rows` rows in `write` calls of `batch` rows; only `write` is timed. */
async function measure(label: string, store: Store, rows: number, batch: number): Promise<number> {
  const bar = process.stderr.isTTY
    ? new SingleBar({ format: `${label} {bar} {value}/{total} rows` })
    : undefined;
  bar?.start(rows, 0);
  let elapsed = 0;
  const cpuBefore = process.cpuUsage();
  for (let done = 0; done < rows; done += batch) {
    const count = Math.min(batch, rows - done);
    const keyBytes = randomBytes(40 * count); // one call per batch: generation stays cheap
    const mutations = Array.from({ length: count }, (_, i) => putOf(keyBytes.subarray(40 * i, 40 * i + 40)));
    const started = performance.now();
    if (batch === 1) {
      for (const mutation of mutations) await expectApplied(store.write([mutation]));
    } else {
      await expectApplied(store.write(mutations));
    }
    elapsed += performance.now() - started;
    bar?.update(done + mutations.length);
  }
  bar?.stop();
  const perSecond = Math.round(rows / (elapsed / 1000));
  // CPU time (ours and the engine's threads, data generation included) is the figure that holds
  // when other processes share the cores; wall-clock rows/s is what the summary reports.
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMicrosPerRow = ((cpu.user + cpu.system) / rows).toFixed(1);
  console.log(
    `${label}: ${rows} rows in ${Math.round(elapsed)} ms = ${perSecond} rows/s (process CPU ${cpuMicrosPerRow} µs/row)`,
  );
  return perSecond;
}

async function expectApplied(result: ReturnType<Store["write"]>): Promise<void> {
  const { failed } = await result;
  if (failed.length > 0) throw new Error(`${failed.length} rows failed, first: ${failed[0]?.reason}`);
}

async function benchEmbedded(): Promise<{ batched: number; single: number }> {
  const directory = await mkdtemp(join(tmpdir(), "keyspread-bench-write-"));
  try {
    const batchedStore = await EmbeddedStore.open({ directory, table: "batched" });
    const batched = await measure("embedded batched", batchedStore, CASES.embeddedBatched, BATCH);
    await batchedStore.close();
    const singleStore = await EmbeddedStore.open({ directory, table: "single" });
    const single = await measure("embedded one-at-a-time", singleStore, CASES.embeddedSingle, 1);
    await singleStore.close();
    return { batched, single };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

async function benchEmulator(): Promise<void> {
  const started = process.env.BIGTABLE_EMULATOR_HOST ? undefined : startEmulator({ record: false });
  if (started !== undefined) process.env.BIGTABLE_EMULATOR_HOST = started;
  try {
    const stamp = Date.now().toString(36);
    const batchedStore = await BigtableStore.createTable({ tableId: `bench_batched_${stamp}` });
    const batched = await measure("emulator batched", batchedStore, CASES.emulatorBatched, BATCH);
    await batchedStore.close();
    const singleStore = await BigtableStore.createTable({ tableId: `bench_single_${stamp}` });
    const single = await measure("emulator one-at-a-time", singleStore, CASES.emulatorSingle, 1);
    await singleStore.close();
    console.log(`emulator: batched_vs_single=${(batched / single).toFixed(1)}`);
  } finally {
    if (started !== undefined) stopEmulator(started);
  }
}

await benchEmulator();
const embedded = await benchEmbedded();
console.log(
  `bench write: embedded_rows_per_s=${embedded.batched} batched_vs_single=${(embedded.batched / embedded.single).toFixed(1)}`,
);

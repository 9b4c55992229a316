/**
 * bench:ingest — the ingest service on the embedded store under a loopback load generator.
 * The service runs in a child process (its own core); this process only sends pre-built NDJSON
 * bodies over keep-alive connections. Bounded: RUN_MS of load or MAX_POINTS points, whichever
 * comes first. Load: 10,000 devices of 10 tenants, each reporting ~20 times/s (200k points/s),
 * 3 metrics per point.
 *
 * Baseline (the fleet incident before the fix): the same points written as one row per point
 * (`deviceId#reverseTs`) straight to the embedded store in 10k-row batches — no HTTP, no log.
 *
 * While the load runs, a probe on its own connection reads the fleet incident's hot read (latest-100 of a
 * random device) every 10 ms, to measure how reads fare beside a full-speed ingest
 * (read_p99_under_ingest_ms) without turning into a second load.
 *
 * Summary: points/s acknowledged, p50/p99 ack latency, points per store row written, latest-100
 * p99 under ingest.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { Agent } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { SingleBar } from "cli-progress";
import { compileSchema } from "../src/keys/schema.js";
import { EmbeddedStore } from "../src/store/embedded/embedded.js";
import { SaltedTable } from "../src/table/salted-table.js";
import { forkService, percentile, send, serveIfChild } from "./http-load.js";

const RUN_MS = 10_000;
const MAX_POINTS = 4_000_000;
const DEVICES = 10_000;
const TENANTS = 10;
const POINTS_PER_BODY = 5_000;
const BODIES = 40;
const CONNECTIONS = 8;
const BASELINE_POINTS = 200_000;
/** Then the fleet incident's hot read, latest-100 of random devices, for this long (its target: 8,000/s). */
const READ_MS = 3_000;
/** The read probe during the ingest: one read per this many ms, counted once the first interval has been flushed. */
const PROBE_EVERY_MS = 10;
const READ_WARMUP_MS = 2_500;

if (!(await serveIfChild())) await main();

function bodies(start: number): Buffer[] {
  let n = 0;
  return Array.from({ length: BODIES }, () => {
    const lines: string[] = [];
    for (let i = 0; i < POINTS_PER_BODY; i++, n++) {
      const device = n % DEVICES;
      lines.push(
        JSON.stringify({
          tenant: `tenant-${device % TENANTS}`,
          deviceId: `dev-${device}`,
          ts: start + Math.floor(n / 200),
          metrics: { cpu: (n % 100) / 100, mem: n % 4096, temp: 20 + (n % 15) },
        }),
      );
    }
    return Buffer.from(lines.join("\n"));
  });
}

/** Latest-100 reads per second over random devices, with the ingest load stopped. */
async function measureReads(agent: Agent, url: string): Promise<number> {
  let reads = 0;
  const deadline = performance.now() + READ_MS;
  const started = performance.now();
  const connection = async () => {
    while (performance.now() < deadline) {
      const status = await send(agent, latestUrl(url));
      if (status !== 200) throw new Error(`latest read answered ${status}`);
      reads++;
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, connection));
  return reads / ((performance.now() - started) / 1000);
}

function latestUrl(base: string): URL {
  const device = Math.floor(Math.random() * DEVICES);
  return new URL(`/v1/devices/dev-${device}/latest?tenant=tenant-${device % TENANTS}&n=100`, base);
}

/** Latest-100 reads on a connection of their own until `done`; returns each read's latency (ms). */
async function readWhile(url: string, startAt: number, done: () => boolean): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  while (!done()) {
    const sent = performance.now();
    const status = await send(agent, latestUrl(url));
    if (status !== 200) throw new Error(`latest read under ingest answered ${status}`);
    const took = performance.now() - sent;
    if (sent >= startAt) latencies.push(took);
    await sleep(Math.max(0, PROBE_EVERY_MS - took));
  }
  agent.destroy();
  return latencies.sort((a, b) => a - b);
}

async function runService(directory: string) {
  const { url, close } = await forkService(fileURLToPath(import.meta.url), directory);
  const target = new URL("/v1/ingest", url);
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const prepared = bodies(Date.now());
  const latencies: number[] = [];
  let acked = 0;
  let refused = 0;
  let next = 0;
  const bar = process.stderr.isTTY
    ? new SingleBar({ format: "ingest {bar} {value}/{total} points" })
    : undefined;
  bar?.start(MAX_POINTS, 0);
  const started = performance.now();
  const deadline = started + RUN_MS;
  let ingesting = true;
  const reads = readWhile(url, started + READ_WARMUP_MS, () => !ingesting);
  const connection = async () => {
    while (performance.now() < deadline && acked + POINTS_PER_BODY <= MAX_POINTS) {
      const body = prepared[next++ % prepared.length]!;
      const sent = performance.now();
      const status = await send(agent, target, body);
      if (status !== 200) {
        refused++;
        continue;
      }
      latencies.push(performance.now() - sent);
      acked += POINTS_PER_BODY;
      bar?.update(acked);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, connection));
  const elapsedS = (performance.now() - started) / 1000;
  ingesting = false;
  const readLatencies = await reads;
  bar?.stop();
  const readsPerS = await measureReads(agent, url);
  agent.destroy();
  const totals = await close();
  latencies.sort((a, b) => a - b);
  return { pointsPerS: acked / elapsedS, latencies, totals, refused, acked, readsPerS, readLatencies };
}

/** The fleet incident's write path: one row per point. */
async function runBaseline(directory: string): Promise<number> {
  const schema = compileSchema({
    version: 1,
    name: "per-point",
    layout: "text",
    separator: "#",
    segments: [
      { field: "deviceId", codec: { type: "string" } },
      { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
    ],
    salt: { buckets: 16, fields: ["deviceId"] },
  });
  const table = await SaltedTable.open(await EmbeddedStore.open({ table: "baseline", directory }), schema, {
    create: true,
  });
  const start = Date.now();
  const begun = performance.now();
  for (let done = 0; done < BASELINE_POINTS; done += 10_000) {
    const rows = Array.from({ length: 10_000 }, (_, i) => {
      const n = done + i;
      return {
        values: { deviceId: `dev-${n % DEVICES}`, ts: start + n },
        cells: { v: JSON.stringify({ tenant: "t", metrics: { cpu: 0.5, mem: n % 4096, temp: 20 } }) },
      };
    });
    const { failed } = await table.putMany(rows);
    if (failed.length > 0) throw new Error(`baseline write failed: ${failed[0]!.reason}`);
  }
  const rate = BASELINE_POINTS / ((performance.now() - begun) / 1000);
  await table.store.close();
  return rate;
}

async function main(): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), "bench-ingest-"));
  try {
    const baseline = await runBaseline(directory);
    const ours = await runService(directory);
    const perWrite = ours.totals.pointsWritten / Math.max(1, ours.totals.rowsWritten);
    if (ours.totals.pointsWritten !== ours.acked) {
      throw new Error(`acknowledged ${ours.acked} points but the store has ${ours.totals.pointsWritten}`);
    }
    process.stderr.write(
      `baseline (one row per point, direct to the store): ${Math.round(baseline)} points/s, 1 point per store write\n` +
        `ours: ${ours.acked} points acknowledged, ${ours.refused} requests refused, ` +
        `${ours.totals.rowsWritten} rows in ${ours.totals.storeWrites} store write calls, ` +
        `${ours.readLatencies.length} latest-100 reads during the ingest\n`,
    );
    console.log(
      `bench ingest: points_per_s=${Math.round(ours.pointsPerS)} ` +
        `p99_ack_ms=${percentile(ours.latencies, 0.99).toFixed(1)} points_per_store_write=${perWrite.toFixed(1)} ` +
        `p50_ack_ms=${percentile(ours.latencies, 0.5).toFixed(1)} baseline_points_per_s=${Math.round(baseline)} latest100_reads_per_s=${Math.round(ours.readsPerS)} ` +
        `read_p99_under_ingest_ms=${percentile(ours.readLatencies, 0.99).toFixed(1)}`,
    );
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

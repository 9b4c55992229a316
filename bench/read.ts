/**
 * Latest-100 for one device with 16 buckets, on the embedded store and on Google's Bigtable
 * emulator with 0 ms and 5 ms of injected per-RPC latency (standing in for the real service),
 * with the unbound read's rounds of store reads and rows scanned per row returned, and the client's
 * and the emulator's CPU per read (where the time goes on a machine whose cores the emulator
 * shares); each pair of reads compared takes turns, run by run, apart from the other pairs:
 * - salt bound by the query (1 range) vs unbound (16 ranges), and the store calls of each alone;
 * - our parallel scatter-gather vs the salting guide's sequential per-bucket loop (read each bucket in
 *   turn, then sort client-side);
 * - the heap merge alone at 256 buckets, without I/O, against a linear min-scan per row;
 * - a bounded read (a time window, no limit) from one range, over 16 buckets in one call (one
 *   store read of 16 ranges), and over 16 buckets in 16 calls: the client CPU each costs, and
 *   from them the client's CPU per call and per row (the lab's client-cores constants).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileSchema } from "../src/keys/index.js";
import type { KeySchema, SchemaSpec } from "../src/keys/types.js";
import { BigtableStore } from "../src/store/bigtable/bigtable.js";
import { EmbeddedStore } from "../src/store/embedded/embedded.js";
import type { Store, StoreRow } from "../src/store/store.js";
import { bucketShare } from "../src/table/bucket-share.js";
import { bySortKey, mergeSortedPages, type PageSource, type SortableRow } from "../src/table/merge.js";
import { SaltedTable } from "../src/table/salted-table.js";
import { emulatorCpuMs, startEmulator, stopEmulator } from "../test/emulator.js";

const BUCKETS = 16;
const DEVICES = 24;
const POINTS_PER_DEVICE = 400;
const N = 100;
const T0 = 1_764_000_000_000;

function spec(name: string, saltFields: string[]): SchemaSpec {
  return {
    version: 1,
    name,
    layout: "text",
    separator: "#",
    segments: [
      { field: "device", codec: { type: "string" } },
      { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
    ],
    salt: { buckets: BUCKETS, fields: saltFields },
  };
}
// Bound: the salt hashes the device, so latest-100 for a device is one range. Unbound: the salt
// also hashes the timestamp, so the device's rows spread over all 16 buckets.
const boundSchema = compileSchema(spec("bound", ["device"]));
const unboundSchema = compileSchema(spec("unbound", ["device", "ts"]));

const say = (line: string) => process.stdout.write(`${line}\n`);

async function fill(table: SaltedTable): Promise<void> {
  const rows = [];
  for (let d = 0; d < DEVICES; d++) {
    for (let i = 0; i < POINTS_PER_DEVICE; i++) {
      rows.push({ values: { device: `device-${d}`, ts: T0 + i * 2000 }, cells: { cpu: String(i % 100) } });
    }
  }
  const { failed } = await table.putMany(rows);
  if (failed.length > 0) throw new Error(`bench setup: ${failed.length} rows failed`);
}

interface Timing {
  /** Mean wall milliseconds per run. */
  ms: number;
  /** Mean CPU milliseconds of this process (the client) per run. */
  cpuMs: number;
  /** Mean CPU milliseconds of the store's server (the emulator) per run; 0 for the embedded store. */
  serverCpuMs: number;
}

/**
 * Mean wall and client CPU milliseconds of each task over `reps` runs, cycling devices, after a
 * quarter as many warm-up runs (a read's code is compiled, and its connection pool filled, before
 * it is timed). The tasks take turns run by run, so a change in the machine's load falls on all alike.
 */
async function timeSideBySide(
  reps: number,
  tasks: readonly ((device: string) => Promise<unknown>)[],
  serverCpuMs: () => number,
): Promise<Timing[]> {
  const totals = tasks.map(() => ({ ms: 0, cpuMs: 0, serverCpuMs: 0 }));
  for (let i = 0; i < Math.max(1, reps / 4); i++) {
    for (const task of tasks) await task(`device-${i % DEVICES}`);
  }
  for (let i = 0; i < reps; i++) {
    for (const [t, task] of tasks.entries()) {
      // The server's CPU is read outside the window the client's is measured in.
      const server = serverCpuMs();
      const cpu = process.cpuUsage();
      const start = performance.now();
      await task(`device-${i % DEVICES}`);
      totals[t]!.ms += performance.now() - start;
      const used = process.cpuUsage(cpu);
      totals[t]!.cpuMs += (used.user + used.system) / 1000;
      totals[t]!.serverCpuMs += serverCpuMs() - server;
    }
  }
  return totals.map(({ ms, cpuMs, serverCpuMs }) => ({
    ms: ms / reps,
    cpuMs: cpuMs / reps,
    serverCpuMs: serverCpuMs / reps,
  }));
}

/** A limit no window of this bench reaches: the read fans out a store read per bucket, as limit-bound reads do. */
const EVERY_ROW = 1_000_000;

/**
 * The client's CPU per call and per row, from the bounded reads: a row's share from one range of
 * 400 points against 100, a call's from 16 calls against one call over the same 16 ranges.
 */
function clientCosts(figures: StoreFigures): { perCallMs: number; perRowMs: number } {
  return {
    perCallMs: (figures.window16CallsCpuMs - figures.window16OneCallCpuMs) / (BUCKETS - 1),
    perRowMs: (figures.window400OneRangeCpuMs - figures.windowOneRangeCpuMs) / (3 * N),
  };
}

/** The salting guide's read: every bucket's range in turn, then one client-side sort. */
async function sequentialLatest(store: Store, schema: KeySchema, device: string): Promise<StoreRow[]> {
  const plan = schema.plan({ eq: { device }, limit: N });
  const rows: StoreRow[] = [];
  for (const range of plan.ranges) {
    for await (const row of store.read([range], { limit: N })) rows.push(row);
  }
  const salt = schema.saltPrefixLength;
  rows.sort((a, b) => Buffer.compare(a.key.subarray(salt), b.key.subarray(salt)));
  return rows.slice(0, N);
}

/**
 * The store calls alone, without the table's decoding and merge: the bound read's one range, or
 * the unbound read's first round (every bucket's range at once, each for its share of the limit).
 */
async function storeCalls(store: Store, schema: KeySchema, device: string): Promise<number> {
  const { ranges } = schema.plan({ eq: { device }, limit: N });
  const limit = ranges.length === 1 ? N : bucketShare(N, ranges.length);
  const counts = await Promise.all(
    ranges.map(async (range) => {
      let rows = 0;
      for await (const _ of store.read([range], { limit })) rows++;
      return rows;
    }),
  );
  return counts.reduce((sum, rows) => sum + rows, 0);
}

interface StoreFigures {
  boundMs: number;
  unboundMs: number;
  sequentialMs: number;
  /** The store calls of each alone (`storeCalls`): what the transport and the store cost. */
  storeBoundMs: number;
  storeUnboundMs: number;
  /** Client and server CPU per read: the bound read (one store read) and the unbound parallel one. */
  boundCpuMs: number;
  unboundCpuMs: number;
  boundServerCpuMs: number;
  unboundServerCpuMs: number;
  /**
   * Client CPU per bounded read (a time window of 100 points, no limit): one range (bound), 16
   * buckets in one call (a store read of 16 ranges), 16 buckets in 16 calls (the per-bucket
   * fan-out, forced by a limit no window reaches); and one range of 400 points, for the cost per row.
   */
  windowOneRangeCpuMs: number;
  window16OneCallCpuMs: number;
  window16CallsCpuMs: number;
  window400OneRangeCpuMs: number;
  /** Of the unbound latest-100 over every device: rounds of store reads per read, rows scanned per row returned. */
  roundsPerRead: number;
  scannedPerReturned: number;
}

/** Rounds and read amplification of the unbound latest-100, over every device. */
async function unboundCosts(
  table: SaltedTable,
): Promise<Pick<StoreFigures, "roundsPerRead" | "scannedPerReturned">> {
  let rounds = 0;
  let scanned = 0;
  let returned = 0;
  for (let d = 0; d < DEVICES; d++) {
    const scan = table.scan({ eq: { device: `device-${d}` }, limit: N });
    await scan.toArray();
    rounds += scan.report.rounds;
    scanned += scan.report.rowsScanned;
    returned += scan.report.rowsReturned;
  }
  return { roundsPerRead: rounds / DEVICES, scannedPerReturned: scanned / returned };
}

async function measure(
  label: string,
  open: (table: string) => Promise<Store>,
  reps: number,
  serverCpuMs: () => number = () => 0,
) {
  const bound = await SaltedTable.open(await open("bound"), boundSchema, { create: true });
  const unbound = await SaltedTable.open(await open("unbound"), unboundSchema, { create: true });
  await fill(bound);
  await fill(unbound);
  const check = await unbound.latest({ eq: { device: "device-3" } }, N);
  const reference = await sequentialLatest(unbound.store, unboundSchema, "device-3");
  if (check.length !== N || check.some((row, i) => !row.key.equals(reference[i]!.key))) {
    throw new Error(`${label}: parallel and sequential reads disagree`);
  }
  // Each ratio from its own pair taking turns: a read that takes ten times as long (the sequential
  // loop) leaves garbage the next read in its rotation collects, which would tax only that one.
  const boundRead = (device: string) => bound.latest({ eq: { device } }, N);
  const unboundRead = (device: string) => unbound.latest({ eq: { device } }, N);
  const [boundTiming, unboundTiming] = await timeSideBySide(reps, [boundRead, unboundRead], serverCpuMs);
  // The sequential loop takes ten reads' time: a quarter of the runs give as many seconds of it.
  const [, sequentialTiming] = await timeSideBySide(
    Math.max(10, Math.round(reps / 4)),
    [unboundRead, (device) => sequentialLatest(unbound.store, unboundSchema, device)],
    serverCpuMs,
  );
  const [storeBound, storeUnbound] = await timeSideBySide(
    reps,
    [
      (device) => storeCalls(bound.store, boundSchema, device),
      (device) => storeCalls(unbound.store, unboundSchema, device),
    ],
    serverCpuMs,
  );
  const windowOf = (points: number) => (device: string) => ({
    eq: { device },
    range: { field: "ts", gte: T0, lt: T0 + points * 2000 },
  });
  const [windowOne, window16, window16Calls, window400] = await timeSideBySide(
    reps,
    [
      (device) => bound.scan(windowOf(N)(device)).toArray(),
      (device) => unbound.scan(windowOf(N)(device)).toArray(),
      (device) => unbound.scan({ ...windowOf(N)(device), limit: EVERY_ROW }).toArray(),
      (device) => bound.scan(windowOf(4 * N)(device)).toArray(),
    ],
    serverCpuMs,
  );
  const figures: StoreFigures = {
    windowOneRangeCpuMs: windowOne!.cpuMs,
    window16OneCallCpuMs: window16!.cpuMs,
    window16CallsCpuMs: window16Calls!.cpuMs,
    window400OneRangeCpuMs: window400!.cpuMs,
    boundMs: boundTiming!.ms,
    unboundMs: unboundTiming!.ms,
    sequentialMs: sequentialTiming!.ms,
    storeBoundMs: storeBound!.ms,
    storeUnboundMs: storeUnbound!.ms,
    boundCpuMs: boundTiming!.cpuMs,
    unboundCpuMs: unboundTiming!.cpuMs,
    boundServerCpuMs: boundTiming!.serverCpuMs,
    unboundServerCpuMs: unboundTiming!.serverCpuMs,
    ...(await unboundCosts(unbound)),
  };
  say(
    `${label.padEnd(18)} latest-100: bound (1 range) ${figures.boundMs.toFixed(2)} ms · ` +
      `unbound parallel (16 ranges) ${figures.unboundMs.toFixed(2)} ms · ` +
      `unbound sequential loop ${figures.sequentialMs.toFixed(2)} ms · ` +
      `parallel ${(figures.sequentialMs / figures.unboundMs).toFixed(2)}× faster, ` +
      `bound ${(figures.unboundMs / figures.boundMs).toFixed(2)}× faster than unbound · ` +
      `unbound: ${figures.roundsPerRead.toFixed(2)} rounds per read, ${figures.scannedPerReturned.toFixed(2)} rows scanned per row returned · ` +
      `client CPU per read: bound ${figures.boundCpuMs.toFixed(2)} ms, unbound ${figures.unboundCpuMs.toFixed(2)} ms · ` +
      `server CPU per read: bound ${figures.boundServerCpuMs.toFixed(2)} ms, unbound ${figures.unboundServerCpuMs.toFixed(2)} ms · ` +
      `store calls alone: bound ${figures.storeBoundMs.toFixed(2)} ms, unbound ${figures.storeUnboundMs.toFixed(2)} ms ` +
      `(${(figures.storeUnboundMs / figures.storeBoundMs).toFixed(2)}×)`,
  );
  const costs = clientCosts(figures);
  say(
    `${label.padEnd(18)} bounded window of 100 points, client CPU per read: one range ${figures.windowOneRangeCpuMs.toFixed(2)} ms · ` +
      `16 buckets in one call ${figures.window16OneCallCpuMs.toFixed(2)} ms (${(figures.window16OneCallCpuMs / figures.windowOneRangeCpuMs).toFixed(2)}×) · ` +
      `16 buckets in 16 calls ${figures.window16CallsCpuMs.toFixed(2)} ms (${(figures.window16CallsCpuMs / figures.windowOneRangeCpuMs).toFixed(2)}×) · ` +
      `one range of 400 points ${figures.window400OneRangeCpuMs.toFixed(2)} ms · ` +
      `per call ${costs.perCallMs.toFixed(3)} ms, per row ${(costs.perRowMs * 1000).toFixed(2)} µs`,
  );
  await bound.store.close();
  await unbound.store.close();
  return figures;
}

async function onEmulator(latency: string, reps: number): Promise<StoreFigures> {
  const host = startEmulator({ latency, record: false });
  try {
    // The client reads the emulator address when it is constructed.
    process.env.BIGTABLE_EMULATOR_HOST = host;
    return await measure(
      `emulator ${latency}`,
      (tableId) => BigtableStore.createTable({ tableId }),
      reps,
      () => emulatorCpuMs(host),
    );
  } finally {
    stopEmulator(host);
  }
}

/** Merge cost per row, no I/O: 256 sorted in-memory buckets, ours vs a linear min-scan per row. */
async function mergeMicrosPerRow(): Promise<{ heapUs: number; linearUs: number }> {
  const buckets = 256;
  const perBucket = 2000;
  const pages: SortableRow[][] = [];
  for (let b = 0; b < buckets; b++) {
    const rows: SortableRow[] = [];
    for (let i = 0; i < perBucket; i++) {
      const key = Buffer.from(
        `${String(b).padStart(3, "0")}#device-${(i * 7919 + b * 104_729) % 1_000_003}#${i}`,
      );
      rows.push({ row: { key, cells: new Map() }, sortKey: key.toString("latin1", 4) });
    }
    rows.sort(bySortKey);
    pages.push(rows);
  }
  const total = buckets * perBucket;
  const source = (rows: SortableRow[], pageSize: number): PageSource<SortableRow> => {
    let at = 0;
    return {
      nextPage: async () => {
        if (at >= rows.length) return null;
        at += pageSize;
        return rows.slice(at - pageSize, at);
      },
      close: async () => {},
    };
  };
  let heapUs = Number.POSITIVE_INFINITY;
  let linearUs = Number.POSITIVE_INFINITY;
  for (let rep = 0; rep < 3; rep++) {
    let start = performance.now();
    let count = 0;
    for await (const page of mergeSortedPages(
      pages.map((rows) => source(rows, 256)),
      bySortKey,
    ))
      count += page.length;
    heapUs = Math.min(heapUs, ((performance.now() - start) * 1000) / count);
    start = performance.now();
    count = linearMerge(pages);
    linearUs = Math.min(linearUs, ((performance.now() - start) * 1000) / count);
    if (count !== total) throw new Error("merge lost rows");
  }
  return { heapUs, linearUs };
}

/** Phoenix/HBaseWD's merge: for every row, scan all bucket heads for the smallest. */
function linearMerge(buckets: SortableRow[][]): number {
  const at = buckets.map(() => 0);
  let count = 0;
  for (;;) {
    let best = -1;
    for (let b = 0; b < buckets.length; b++) {
      const head = buckets[b]![at[b]!];
      if (head && (best < 0 || bySortKey(head, buckets[best]![at[best]!]!) < 0)) best = b;
    }
    if (best < 0) return count;
    at[best]!++;
    count++;
  }
}

const directory = await mkdtemp(join(tmpdir(), "keyspread-bench-read-"));
try {
  const embedded = await measure("embedded", (table) => EmbeddedStore.open({ table, directory }), 200);
  const emulator0 = await onEmulator("0ms", 100);
  const emulator5 = await onEmulator("5ms", 200);
  const merge = await mergeMicrosPerRow();
  say(
    `merge at 256 buckets, no I/O: heap ${merge.heapUs.toFixed(3)} µs/row · linear min-scan ${merge.linearUs.toFixed(3)} µs/row (${(merge.linearUs / merge.heapUs).toFixed(1)}×)`,
  );
  say(
    `embedded: parallel_vs_sequential=${(embedded.sequentialMs / embedded.unboundMs).toFixed(2)} bound_vs_unbound=${(embedded.unboundMs / embedded.boundMs).toFixed(2)}`,
  );
  say(
    `bench read: parallel_vs_sequential=${(emulator5.sequentialMs / emulator5.unboundMs).toFixed(2)}` +
      ` parallel_vs_sequential_0ms=${(emulator0.sequentialMs / emulator0.unboundMs).toFixed(2)}` +
      ` merge_us_per_row=${merge.heapUs.toFixed(3)}` +
      ` client_cpu_ms_bound=${emulator5.boundCpuMs.toFixed(2)}` +
      ` client_cpu_ms_unbound=${emulator5.unboundCpuMs.toFixed(2)}` +
      ` server_cpu_ms_bound=${emulator5.boundServerCpuMs.toFixed(2)}` +
      ` server_cpu_ms_unbound=${emulator5.unboundServerCpuMs.toFixed(2)}` +
      ` bound_vs_unbound=${(emulator5.unboundMs / emulator5.boundMs).toFixed(2)}` +
      ` store_calls_bound_vs_unbound=${(emulator5.storeUnboundMs / emulator5.storeBoundMs).toFixed(2)}` +
      ` rounds_per_read=${emulator5.roundsPerRead.toFixed(2)}` +
      ` scanned_per_returned=${emulator5.scannedPerReturned.toFixed(2)}` +
      ` client_cpu_ms_window_one_range=${emulator5.windowOneRangeCpuMs.toFixed(2)}` +
      ` client_cpu_ms_window16_one_call=${emulator5.window16OneCallCpuMs.toFixed(2)}` +
      ` client_cpu_ms_window16_calls=${emulator5.window16CallsCpuMs.toFixed(2)}` +
      ` window16_one_call_vs_one_range=${(emulator5.window16OneCallCpuMs / emulator5.windowOneRangeCpuMs).toFixed(2)}` +
      ` window16_calls_vs_one_call=${(emulator5.window16CallsCpuMs / emulator5.window16OneCallCpuMs).toFixed(2)}` +
      ` client_cpu_ms_per_call=${clientCosts(emulator5).perCallMs.toFixed(3)}` +
      ` client_cpu_us_per_row=${(clientCosts(emulator5).perRowMs * 1000).toFixed(2)}`,
  );
} finally {
  await rm(directory, { recursive: true, force: true });
}

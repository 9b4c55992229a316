/**
 * bench:accesslog — the cost of an access log to the app: rows written through `SaltedTable` with a
 * 1 % sample going to the file sink, against the same writes with no log, in the same run; and how
 * many records a second the file sink writes when everything is recorded.
 *
 * Each round runs a pair back to back (alternating which goes first) and the median pair's ratio is
 * reported, so the machine's drift cancels. On the memory store the ratio is the log's own cost
 * (`overhead_pct`); on the embedded store it also carries LevelDB's compactions and the disk's
 * write-back, which swing a pair by ±20 % here (`embedded_overhead_pct`, the app's view).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileAccessLogSink } from "../src/access-log/file-sink.js";
import { compileSchema } from "../src/keys/index.js";
import { medianOfSorted } from "../src/stats/median.js";
import { EmbeddedStore } from "../src/store/embedded/embedded.js";
import { MemoryStore } from "../src/store/memory/memory.js";
import type { Store } from "../src/store/store.js";
import { SaltedTable } from "../src/table/salted-table.js";

const ROWS = 300_000;
const BATCH = 1_000;
const ROUNDS = 5;
const SINK_RECORDS = 500_000;

const schema = compileSchema({
  version: 1,
  name: "fleet",
  layout: "text",
  segments: [
    { field: "deviceId", codec: { type: "string" } },
    { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
  ],
  salt: { buckets: 16, fields: ["deviceId"] },
});
const rows = Array.from({ length: ROWS }, (_, n) => ({
  values: { deviceId: `dev-${n % 5000}`, ts: new Date(Date.UTC(2026, 0, 1) + n) },
  cells: { value: "0.93" },
}));

const directory = await mkdtemp(join(tmpdir(), "keyspread-bench-accesslog-"));
let recorded = 0;

async function timeWrites(store: Store, sink: FileAccessLogSink | undefined): Promise<number> {
  const table = await SaltedTable.open(store, schema, {
    create: true,
    ...(sink ? { accessLog: { sink, sampleRate: 0.01 } } : {}),
  });
  const started = performance.now();
  for (let first = 0; first < ROWS; first += BATCH) await table.putMany(rows.slice(first, first + BATCH));
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  return seconds;
}

/** Per round, seconds with the log ÷ seconds without, sorted. */
async function pairRatios(kind: string, open: (name: string) => Promise<Store>): Promise<number[]> {
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const plain = () => open(`${kind}-plain-${round}`).then((store) => timeWrites(store, undefined));
    const logged = async () => {
      const sink = await FileAccessLogSink.open(join(directory, `${kind}-access-${round}.jsonl`));
      const seconds = await timeWrites(await open(`${kind}-logged-${round}`), sink);
      await sink.close();
      recorded += sink.stats.written;
      return seconds;
    };
    const [withLog, withoutLog] =
      round % 2 === 0 ? [await logged(), await plain()] : [await plain(), await logged()].reverse();
    ratios.push(withLog! / withoutLog!);
  }
  return ratios.sort((a, b) => a - b);
}

const medianPct = (ratios: number[]) => (medianOfSorted(ratios) - 1) * 100;
const memory = await pairRatios("memory", async () => new MemoryStore());
const embedded = await pairRatios("embedded", (table) => EmbeddedStore.open({ directory, table }));

const sink = await FileAccessLogSink.open(join(directory, "throughput.jsonl"), { queueLimit: SINK_RECORDS });
const record = {
  tsMs: Date.now(),
  key: schema.encode({ deviceId: "dev-0", ts: new Date(Date.UTC(2026, 0, 1)) }),
  op: "write" as const,
  bytes: 10,
  latencyMs: 0.3,
};
const sinkStarted = performance.now();
for (let n = 0; n < SINK_RECORDS; n++) sink.write(record);
await sink.close();
const recordsPerS = SINK_RECORDS / ((performance.now() - sinkStarted) / 1000);
await rm(directory, { recursive: true, force: true });

const ratioList = (ratios: number[]) => ratios.map((ratio) => ratio.toFixed(3)).join(" ");
console.log(
  `${ROWS} rows through SaltedTable, ${ROUNDS} rounds of a pair (1 % sample to the file sink vs no log); with/without per round:`,
);
console.log(`  memory store:   ${ratioList(memory)}`);
console.log(`  embedded store: ${ratioList(embedded)}   (${recorded} records written in all)`);
console.log(
  `file sink, everything recorded: ${SINK_RECORDS} records in ${(SINK_RECORDS / recordsPerS).toFixed(2)} s`,
);
console.log(
  `bench accesslog: overhead_pct=${medianPct(memory).toFixed(1)} embedded_overhead_pct=${medianPct(embedded).toFixed(1)} records_per_s=${Math.round(recordsPerS)}`,
);

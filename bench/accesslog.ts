/**
 * bench:accesslog — the cost of an access log to the app: rows written through `SaltedTable` on the
 * embedded store with a 1 % sample going to the file sink, against the same writes with no log, in
 * the same run (alternating, best of three each); and how many records a second the file sink
 * writes when everything is recorded.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileAccessLogSink } from "../src/access-log/file-sink.js";
import { compileSchema } from "../src/keys/index.js";
import { EmbeddedStore } from "../src/store/embedded.js";
import { type PutRow, SaltedTable } from "../src/table/salted-table.js";

const ROWS = 500_000;
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
const rows: PutRow[] = Array.from({ length: ROWS }, (_, n) => ({
  values: { deviceId: `dev-${n % 5000}`, ts: new Date(Date.UTC(2026, 0, 1) + n) },
  cells: { value: "0.93" },
}));

const directory = await mkdtemp(join(tmpdir(), "keyspread-bench-accesslog-"));

async function timeWrites(name: string, sink: FileAccessLogSink | undefined): Promise<number> {
  const store = await EmbeddedStore.open({ directory, table: name });
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

const plain: number[] = [];
const logged: number[] = [];
let recorded = 0;
// Alternating which goes first, so neither always runs while the other's compactions finish.
for (let round = 0; round < ROUNDS; round++) {
  const runPlain = async () => plain.push(await timeWrites(`plain-${round}`, undefined));
  const runLogged = async () => {
    const sink = await FileAccessLogSink.open(join(directory, `access-${round}.jsonl`));
    logged.push(await timeWrites(`logged-${round}`, sink));
    await sink.close();
    recorded += sink.stats.written;
  };
  if (round % 2 === 0) {
    await runPlain();
    await runLogged();
  } else {
    await runLogged();
    await runPlain();
  }
}
const best = (times: number[]) => Math.min(...times);
const overheadPct = (best(logged) / best(plain) - 1) * 100;

const sink = await FileAccessLogSink.open(join(directory, "throughput.jsonl"), { queueLimit: SINK_RECORDS });
const record = {
  tsMs: Date.now(),
  key: schema.encode(rows[0]!.values),
  op: "write" as const,
  bytes: 10,
  latencyMs: 0.3,
};
const sinkStarted = performance.now();
for (let n = 0; n < SINK_RECORDS; n++) sink.write(record);
await sink.close();
const recordsPerS = SINK_RECORDS / ((performance.now() - sinkStarted) / 1000);
await rm(directory, { recursive: true, force: true });

console.log(
  `${ROWS} rows through SaltedTable (embedded), best of ${ROUNDS}: no log ${best(plain).toFixed(2)} s, 1 % sample to the file sink ${best(logged).toFixed(2)} s (${recorded} records written in all)`,
);
console.log(
  `file sink, everything recorded: ${SINK_RECORDS} records in ${(SINK_RECORDS / recordsPerS).toFixed(2)} s`,
);
console.log(
  `bench accesslog: overhead_pct=${overheadPct.toFixed(1)} records_per_s=${Math.round(recordsPerS)}`,
);

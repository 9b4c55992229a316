/**
 * Keys/s of a 3-field salted schema (entity, metric, reverse timestamp) against, in the same run,
 * (a) the game-studio recipe written naively (template string + node:crypto md5, bucket from the first
 * 4 hex digits) and (b) an unsalted template string. Every variant returns the key as a Buffer.
 * Ratios are throughput ratios: ours / baseline (vs_unsalted ≥ 0.5 means at most 2× slower).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseSchema } from "../src/keys/index.js";

// The shipped fleet example: deviceId#metric#reverse-ms timestamp, 16 buckets, xxh32 over deviceId.
const schema = parseSchema(readFileSync("examples/schemas/fleet.yaml", "utf8"));

const SAMPLES = 100_000;
const METRICS = ["cpu", "mem", "disk_io", "net_rx", "net_tx", "temp"];
const rows = Array.from({ length: SAMPLES }, (_, i) => ({
  deviceId: `device-${(i * 7919) % 90_000}`,
  metric: METRICS[i % METRICS.length]!,
  ts: 1_700_000_000_000 + i * 2000,
}));

const MAX_MS = 9_999_999_999_999;

const variants: Record<string, (row: (typeof rows)[number]) => Buffer> = {
  ours: (row) => schema.encode(row),
  md5Recipe: (row) => {
    const originalKey = `${row.deviceId}_${row.metric}_${MAX_MS - row.ts}`;
    const hashValue = createHash("md5").update(originalKey).digest("hex");
    const bucket = Number.parseInt(hashValue.slice(0, 4), 16) % 100;
    return Buffer.from(`${String(bucket).padStart(3, "0")}_${originalKey}`);
  },
  unsalted: (row) => Buffer.from(`${row.deviceId}#${row.metric}#${MAX_MS - row.ts}`),
};

/** Keys per second of one timed pass over the samples, repeated for at least `ms`. */
function measure(encode: (row: (typeof rows)[number]) => Buffer, ms: number): number {
  let keys = 0;
  let bytes = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(ms) * 1_000_000n;
  let now = start;
  while (now < deadline) {
    for (const row of rows) bytes += encode(row).length;
    keys += rows.length;
    now = process.hrtime.bigint();
  }
  if (bytes === 0) throw new Error("no keys encoded");
  return keys / (Number(now - start) / 1e9);
}

const progress = process.stderr.isTTY;
// Best of many short interleaved rounds: robust to other processes sharing the cores.
const ROUNDS = 8;
const best: Record<string, number> = {};
for (const name of Object.keys(variants)) measure(variants[name]!, 200); // warm-up: JIT every variant first
for (let round = 1; round <= ROUNDS; round++) {
  for (const [name, encode] of Object.entries(variants)) {
    const rate = measure(encode, 250);
    best[name] = Math.max(best[name] ?? 0, rate);
    if (progress)
      process.stderr.write(`round ${round}/${ROUNDS} ${name}: ${(rate / 1e6).toFixed(2)} M keys/s\n`);
  }
}

const ours = best.ours!;
console.log(
  `bench keys: keys_per_s=${Math.round(ours)} vs_md5_recipe=${(ours / best.md5Recipe!).toFixed(2)} vs_unsalted=${(ours / best.unsalted!).toFixed(2)}`,
);

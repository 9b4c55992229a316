/**
 * bench:backfill — re-keying one Bigtable table (the fleet incident: unsalted → 16 buckets) on the
 * emulator, with a 2 ms sleep per RPC standing in for the network, as an indexed job of 1, 2 and 4
 * tasks (`migrate backfill --tasks N --task-index K`, one process each, as an engine runs them),
 * in the same run, alternating, best of ROUNDS. Every run must copy every row exactly once (the
 * job's status in the new table says so). What bounds it: the CPU the tasks and the emulator use
 * against the machine's cores over the run.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { compileSchema } from "../src/keys/schema.js";
import type { SchemaSpec } from "../src/keys/types.js";
import { jobStatuses } from "../src/migrate/job/job-status.js";
import { BigtableStore } from "../src/store/bigtable/bigtable.js";
import type { StoreMutation } from "../src/store/store.js";
import { SaltedTable } from "../src/table/salted-table.js";
import { emulatorCpuMs, startEmulator, stopEmulator } from "../test/emulator.js";

const ROWS = 120_000;
const TASKS = [1, 2, 4];
const ROUNDS = 2;
const BATCH = 1000;
// The built bin, as an engine runs the package (`npm run bench:backfill` builds it first).
const BIN = resolve("dist/cli/main.js");

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

/** The whole machine's CPU time so far, busy and total, in clock ticks (Linux /proc/stat): other work on it shows here. */
function machineTicks(): { busy: number; total: number } {
  const [, ...ticks] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).map(Number);
  const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - ticks[3]! - ticks[4]!, total };
}

/** CPU milliseconds of this process's children that have exited (Linux: cutime + cstime, clock ticks of 10 ms). */
function childrenCpuMs(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

// Our own instance: the latency is what makes one task wait on every round trip.
const address = startEmulator({ latency: "2ms", record: false });
process.env.BIGTABLE_EMULATOR_HOST = address;
const directory = await mkdtemp(join(tmpdir(), "keyspread-bench-backfill-"));
const stamp = Date.now().toString(36);
let tables = 0;
const newTable = async () => {
  const tableId = `bench_backfill_${stamp}_${tables++}`;
  return { store: await BigtableStore.createTable({ tableId }), address: `bigtable:${tableId}` };
};

try {
  const source = await newTable();
  await SaltedTable.open(source.store, from, { create: true });
  for (let first = 0; first < ROWS; first += 10_000) {
    const mutations: StoreMutation[] = Array.from({ length: 10_000 }, (_, i) => ({
      type: "put",
      key: from.encode({ deviceId: `dev-${(first + i) % 997}`, ts: 1_700_000_000_000 + first + i }),
      cells: new Map([["value", Buffer.from(String(first + i))]]),
    }));
    const { failed } = await source.store.write(mutations);
    if (failed.length > 0) throw new Error(`fill failed: ${failed[0]!.reason}`);
  }
  const fromSchema = join(directory, "from.json");
  const toSchema = join(directory, "to.json");
  await writeFile(fromSchema, JSON.stringify(from.spec));
  await writeFile(toSchema, JSON.stringify(to.spec));

  interface Run {
    seconds: number;
    clientCpu: number;
    emulatorCpu: number;
    /** Share of the machine's CPU busy over the run, by anything. */
    machineBusy: number;
  }

  /** Seconds for `tasks` task processes to copy the source into a new table. */
  const copy = async (tasks: number): Promise<Run> => {
    const target = await newTable();
    const [clientBefore, emulatorBefore, machineBefore] = [
      childrenCpuMs(),
      emulatorCpuMs(address),
      machineTicks(),
    ];
    const started = performance.now();
    const args = ["--from", source.address, "--from-schema", fromSchema, "--to", target.address];
    const codes = await Promise.all(
      Array.from(
        { length: tasks },
        (_, index) =>
          new Promise<number | null>((done) => {
            const child = spawn(
              "node",
              [
                BIN,
                "migrate",
                "backfill",
                ...args,
                "--to-schema",
                toSchema,
                "--tasks",
                String(tasks),
                "--task-index",
                String(index),
                "--batch",
                String(BATCH),
              ],
              { stdio: ["ignore", "ignore", "pipe"] },
            );
            // Shard events are JSON lines; anything else is an error worth seeing.
            child.stderr!.on("data", (chunk: Buffer) => {
              for (const line of chunk.toString().split("\n"))
                if (line.trim() !== "" && !line.startsWith("{"))
                  process.stderr.write(`task ${index}: ${line}\n`);
            });
            child.on("exit", done);
          }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const run = {
      seconds,
      clientCpu: (childrenCpuMs() - clientBefore) / 1000,
      emulatorCpu: (emulatorCpuMs(address) - emulatorBefore) / 1000,
      machineBusy: (() => {
        const after = machineTicks();
        return (after.busy - machineBefore.busy) / (after.total - machineBefore.total);
      })(),
    };
    const [status] = await jobStatuses(target.store);
    await target.store.close();
    if (codes.some((code) => code !== 0)) throw new Error(`${tasks} tasks: exit codes ${codes.join(", ")}`);
    if (status?.rows !== ROWS || status.shards.done !== status.shards.total)
      throw new Error(`${tasks} tasks copied ${status?.rows} of ${ROWS} rows`);
    console.log(
      `${tasks} task(s): ${ROWS} rows in ${seconds.toFixed(2)} s (tasks' CPU ${run.clientCpu.toFixed(1)} s, emulator's ${run.emulatorCpu.toFixed(1)} s)`,
    );
    return run;
  };

  const runs = new Map<number, Run[]>(TASKS.map((n) => [n, []]));
  for (let round = 0; round < ROUNDS; round++) for (const n of TASKS) runs.get(n)!.push(await copy(n));
  await source.store.close();
  const best = new Map(
    TASKS.map((n) => [n, runs.get(n)!.reduce((a, b) => (a.seconds <= b.seconds ? a : b))]),
  );
  const rate = (n: number) => ROWS / best.get(n)!.seconds;
  const cores = availableParallelism();
  const widest = best.get(TASKS.at(-1)!)!;
  const ours = (widest.clientCpu + widest.emulatorCpu) / (widest.seconds * cores);
  console.log(
    `bound: with ${TASKS.at(-1)} tasks the machine's ${cores} cores were ${(widest.machineBusy * 100).toFixed(0)}% busy, ` +
      `${(ours * 100).toFixed(0)}% by the tasks and the emulator (the tasks ${((widest.clientCpu / (widest.clientCpu + widest.emulatorCpu)) * 100).toFixed(0)}% of that): ` +
      (widest.machineBusy > 0.85
        ? "the machine's CPU bounds it (each task process also pays Node's and the client's start-up)"
        : "round trips bound it, not CPU"),
  );
  console.log(
    `bench backfill: rows=${ROWS} tasks_1_rows_per_s=${Math.round(rate(1))} tasks_2_rows_per_s=${Math.round(rate(2))} tasks_4_rows_per_s=${Math.round(rate(4))} ratio_2_vs_1=${(rate(2) / rate(1)).toFixed(2)} ratio_4_vs_1=${(rate(4) / rate(1)).toFixed(2)} machine_busy_4=${widest.machineBusy.toFixed(2)} ours_busy_4=${ours.toFixed(2)} cores=${cores}`,
  );
} finally {
  stopEmulator(address);
  await rm(directory, { recursive: true, force: true });
}

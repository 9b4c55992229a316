/**
 * bench:loadtest — the fleet scenario's as-is design at a small scale, driven for two minutes by
 * three tasks of `keyspread loadtest` (one process each, as an engine runs them) against the
 * emulator with a 2 ms sleep per RPC standing in for the network. Reports each task's and the
 * run's achieved/target rates (within 10 % counts as reached) and, where a task fell short, why
 * (its requests in flight were full: the machine, not the design), beside the machine's busy share.
 * `LOADTEST_BENCH_SECONDS` and `LOADTEST_BENCH_SCALE` change the run.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readRunStatus } from "../src/loadtest/run-status.js";
import { BigtableStore } from "../src/store/bigtable/bigtable.js";
import { startEmulator, stopEmulator } from "../test/emulator.js";

const SECONDS = Number(process.env.LOADTEST_BENCH_SECONDS ?? 120);
const SCALE = Number(process.env.LOADTEST_BENCH_SCALE ?? 0.002);
const TASKS = 3;
const BIN = resolve("dist/cli/main.js");

function machineTicks(): { busy: number; total: number } {
  const [, ...ticks] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).map(Number);
  const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - ticks[3]! - ticks[4]!, total };
}

interface TaskResult {
  status: string;
  measured: {
    writeRatio: number | null;
    readRatio: number | null;
    behind: number;
    reached: boolean;
    why?: string;
  };
  prediction: { metric: string; predicted: number | null; measured: number | null }[];
}

function runTask(table: string, index: number, cwd: string): Promise<TaskResult> {
  return new Promise((done, fail) => {
    const child = spawn(
      "node",
      [
        BIN,
        "loadtest",
        "--scenario",
        resolve("examples/fleet-hotspot.yaml"),
        "--design",
        "as-is",
        "--table",
        `bigtable:${table}`,
        "--scale",
        String(SCALE),
        "--duration",
        `${SECONDS}s`,
        "--tasks",
        String(TASKS),
        "--task-index",
        String(index),
        "--json",
        "--yes",
      ],
      { cwd, stdio: ["ignore", "pipe", "inherit"] },
    );
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.on("exit", (code) =>
      code === 0 ? done(JSON.parse(stdout) as TaskResult) : fail(new Error(`task ${index} exited ${code}`)),
    );
  });
}

const address = startEmulator({ latency: "2ms", record: false });
process.env.BIGTABLE_EMULATOR_HOST = address;
try {
  const cwd = await mkdtemp(join(tmpdir(), "keyspread-bench-loadtest-"));
  const table = `benchlt${Date.now().toString(36)}`;
  const before = machineTicks();
  const results = await Promise.all(Array.from({ length: TASKS }, (_, index) => runTask(table, index, cwd)));
  const after = machineTicks();
  const store = await BigtableStore.open({ tableId: table });
  const status = (await readRunStatus(store))!;
  await store.deleteTable();
  await store.close();
  const ratio = (value: number | null) => (value === null ? "none" : value.toFixed(3));
  const p99 = (metric: string, side: "predicted" | "measured") => {
    const value = results[0]!.prediction.find((row) => row.metric === metric)?.[side];
    return value === null || value === undefined ? "none" : value.toFixed(1);
  };
  const reached = results.every((result) => result.measured.reached);
  for (const [index, result] of results.entries()) {
    if (!result.measured.reached) console.log(`task ${index}: below target — ${result.measured.why}`);
  }
  console.log(
    `bench loadtest: tasks=${TASKS} scale=${SCALE} seconds=${SECONDS} write_ratio=${ratio(status.writeRatio)} read_ratio=${ratio(status.readRatio)} task_write_ratios=${results.map((r) => ratio(r.measured.writeRatio)).join("/")} task_read_ratios=${results.map((r) => ratio(r.measured.readRatio)).join("/")} behind=${status.behind} errors=${Object.values(status.errors).reduce((a, b) => a + b, 0)} write_p99_ms=${p99("write p99", "measured")} lab_write_p99_ms=${p99("write p99", "predicted")} latest_p99_ms=${p99("read p99 latest-100", "measured")} lab_latest_p99_ms=${p99("read p99 latest-100", "predicted")} reached_within_10pct=${reached ? "yes" : "no"} machine_busy=${((after.busy - before.busy) / (after.total - before.total)).toFixed(2)}`,
  );
} finally {
  stopEmulator(address);
}

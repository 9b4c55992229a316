/**
 * `keyspread loadtest` on the built bin and Google's emulator: three tasks of a small fleet run, one
 * killed (SIGKILL) and one stopped (SIGTERM) midway and each restarted with its index; `status`
 * reading the run back; the refusals that come before anything is written; `delete`. Seconds, not
 * minutes: the two-minute run is `npm run bench:loadtest`.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../keys/index.js";
import { readRun } from "../../loadtest/run-record.js";
import { type RunStatus, readRunStatus } from "../../loadtest/run-status.js";
import { parseScenario } from "../../sim/scenario/scenario.js";
import { BigtableStore } from "../../store/bigtable/bigtable.js";
import { SaltedTable } from "../../table/salted-table.js";
import { RESERVED_PREFIX } from "../../table/schema-guard.js";

const BIN = resolve("dist/cli/main.js");
const FLEET = resolve("examples/fleet-hotspot.yaml");
const fleet = parseScenario(readFileSync(FLEET, "utf8"));
const dir = mkdtempSync(join(tmpdir(), "keyspread-loadtest-"));
const unique = () => `lt${process.pid}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

const RUN = ["--scenario", FLEET, "--design", "as-is", "--scale", "0.001"];

function cli(args: string[]) {
  const result = spawnSync("node", [BIN, ...args], { cwd: dir, encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function status(table: string): Omit<RunStatus, "measurement"> {
  const result = cli(["loadtest", "status", "--table", `bigtable:${table}`, "--json"]);
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout);
}

interface Task {
  child: ChildProcess;
  stdout: string;
  exit: Promise<number | null>;
}

function startTask(table: string, index: number, extra: string[] = []): Task {
  const child = spawn(
    "node",
    [
      BIN,
      "loadtest",
      ...RUN,
      "--table",
      `bigtable:${table}`,
      "--tasks",
      "3",
      "--task-index",
      String(index),
      "--json",
      ...extra,
    ],
    { cwd: dir },
  );
  const task: Task = { child, stdout: "", exit: undefined as never };
  child.stdout!.on("data", (chunk: Buffer) => {
    task.stdout += chunk.toString();
  });
  task.exit = new Promise((done) => child.on("exit", (code) => done(code)));
  return task;
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

async function tableExists(table: string): Promise<boolean> {
  const store = await BigtableStore.open({ tableId: table });
  try {
    for await (const _ of store.read([{ start: Buffer.alloc(0), end: null }], { limit: 1 })) break;
    return true;
  } catch {
    return false;
  } finally {
    await store.close();
  }
}

describe("keyspread loadtest (emulator)", () => {
  it("runs three tasks; a killed and a stopped task restarted with their index resume their shares; status reads the run", async () => {
    const table = unique();
    const common = ["--duration", "25s", "--interval", "1", "--lease-seconds", "2"];
    const tasks = [0, 1, 2].map((index) => startTask(table, index, common));
    // Wait until tasks 1 and 2 have checkpointed some of their share (read in-process: quicker than the CLI).
    const store = await BigtableStore.open({ tableId: table });
    try {
      await until(async () => {
        const shares = (await readRunStatus(store).catch(() => undefined))?.shares;
        return shares !== undefined && shares[1]!.drivenS >= 1 && shares[2]!.drivenS >= 1;
      }, "tasks 1 and 2 to checkpoint");
    } finally {
      await store.close();
    }
    tasks[1]!.child.kill("SIGKILL");
    tasks[2]!.child.kill("SIGTERM");
    expect(await tasks[2]!.exit).toBe(0);
    expect(JSON.parse(tasks[2]!.stdout).status).toBe("stopped");
    await tasks[1]!.exit;
    const restarted = [startTask(table, 1, common), startTask(table, 2, common)];
    for (const task of [tasks[0]!, ...restarted]) expect(await task.exit).toBe(0);
    for (const task of restarted) {
      const result = JSON.parse(task.stdout);
      expect(result.status).toBe("done");
      // It went on from its share's checkpoint, with seconds of the run still to drive.
      expect(result.resumedFromS).toBeGreaterThan(0);
      expect(result.resumedFromS).toBeLessThan(25);
      expect(result.measured.drivenS).toBe(25);
    }
    const run = status(table);
    expect(run.run).toMatchObject({ tasks: 3, scale: 0.001, design: "as-is", durationS: 25 });
    expect(run.shares.map((share) => share.state)).toEqual(["done", "done", "done"]);
    // Task 0 ran uninterrupted: its rate is the target's (the restarted ones lost the seconds they were down).
    expect(run.shares[0]!.writeRatio).toBeGreaterThan(0.9);
    expect(run.shares.every((share) => share.drivenS >= 25)).toBe(true);
    expect(run.latency.write!.count).toBe(run.writes);
    expect(run.errors).toEqual({});
    const again = cli([
      "loadtest",
      ...RUN,
      "--table",
      `bigtable:${table}`,
      "--tasks",
      "3",
      "--task-index",
      "0",
      "--duration",
      "25s",
      "--json",
    ]);
    expect(again.status).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: "done", resumedFromS: 25 });
    const deleted = cli(["loadtest", "delete", "--table", `bigtable:${table}`, "--yes"]);
    expect(JSON.parse(deleted.stdout)).toEqual({ deleted: "table", table: expect.stringContaining(table) });
    expect(await tableExists(table)).toBe(false);
  }, 240_000);

  it("refuses bad input before anything is written: an unknown design, a scale the tasks cannot drive, another run's parameters", async () => {
    const table = unique();
    const design = cli(["loadtest", "--scenario", FLEET, "--design", "nope", "--table", `bigtable:${table}`]);
    expect(design.status).toBe(1);
    expect(design.stderr).toMatch(/design "nope" is not in scenario "fleet-hotspot"; designs: as-is/);
    const scale = cli([
      "loadtest",
      ...RUN.slice(0, 4),
      "--scale",
      "0.5",
      "--tasks",
      "3",
      "--task-index",
      "0",
      "--table",
      `bigtable:${table}`,
    ]);
    expect(scale.status).toBe(1);
    expect(scale.stderr).toMatch(
      /--scale 0\.5 asks 94,000 operations\/s .* from 3 task\(s\).*--task-capacity 5000/,
    );
    expect(await tableExists(table)).toBe(false);
    const first = cli([
      "loadtest",
      ...RUN,
      "--table",
      `bigtable:${table}`,
      "--duration",
      "1s",
      "--access-log",
      join(dir, `${table}-{task}.jsonl`),
      "--json",
    ]);
    expect(first.status).toBe(0);
    // The log's writes beside the lab's rows (load-by-range.test.ts checks where they sit); no
    // cluster watch on the emulator.
    const result = JSON.parse(first.stdout);
    expect(result.load.writes).toBeGreaterThan(0);
    expect(result.load.rows.length).toBeGreaterThan(1);
    expect(result.load.rows[0]).toEqual(
      expect.objectContaining({
        start: expect.any(String),
        lab: expect.any(Number),
        run: expect.any(Number),
      }),
    );
    expect(result.cluster).toMatchObject({ samples: 0, average: null, hottest: null });
    const store = await BigtableStore.open({ tableId: table });
    try {
      const before = await readRun(store);
      const other = cli(["loadtest", ...RUN, "--table", `bigtable:${table}`, "--duration", "2s"]);
      // Refused (LoadTestConflictError's fields: loadtest-task.test.ts), the run as it was.
      expect(other.status).toBe(1);
      expect(await readRun(store)).toEqual(before);
      expect(before?.durationS).toBe(1);
    } finally {
      await store.close();
    }
  }, 120_000);

  it("refuses a table holding others' rows unless --reuse-table repeats its name, and then deletes only its own rows", async () => {
    const table = unique();
    const store = await BigtableStore.createTable({ tableId: table });
    // A keyspread table of the same schema that other code writes to.
    await SaltedTable.open(store, compileSchema(fleet.designs[0]!.schema), { create: true });
    const theirs = Buffer.from("someone-else#row");
    await store.write([{ type: "put", key: theirs, cells: new Map([["v", Buffer.from("keep me")]]) }]);
    const dataRows = async () => {
      const keys: Buffer[] = [];
      for await (const row of store.read([{ start: Buffer.alloc(0), end: RESERVED_PREFIX }]))
        keys.push(row.key);
      return keys;
    };
    try {
      const refused = cli(["loadtest", ...RUN, "--table", `bigtable:${table}`, "--duration", "1s"]);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(/holds rows not written by a load test .*--reuse-table/);
      const wrong = cli([
        "loadtest",
        ...RUN,
        "--table",
        `bigtable:${table}`,
        "--duration",
        "1s",
        "--reuse-table",
        "other",
      ]);
      // Refused (ReuseTableMismatchError's fields: test-table.test.ts).
      expect(wrong.status).toBe(1);
      // Nothing written by either refusal.
      expect(await dataRows()).toEqual([theirs]);
      expect(await readRun(store)).toBeUndefined();
      const reused = cli([
        "loadtest",
        ...RUN,
        "--table",
        `bigtable:${table}`,
        "--duration",
        "2s",
        "--reuse-table",
        table,
      ]);
      expect(reused.status).toBe(0);
      expect((await dataRows()).length).toBeGreaterThan(1);
      const deleted = JSON.parse(cli(["loadtest", "delete", "--table", `bigtable:${table}`, "--yes"]).stdout);
      expect(deleted).toMatchObject({ deleted: "rows" });
      expect(deleted.rows).toBeGreaterThan(0);
      expect(await dataRows()).toEqual([theirs]);
      expect(await readRun(store)).toBeUndefined();
    } finally {
      await store.deleteTable();
      await store.close();
    }
  }, 120_000);
});

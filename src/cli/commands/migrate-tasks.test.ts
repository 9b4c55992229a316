/**
 * An indexed job's tasks as an engine runs them, on the built bin and Google's emulator: each task
 * its own process in its own empty working directory, killed and restarted (same index, new
 * directory) or frozen past its lease, with a dual-writing client updating rows in place.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { DualWriteTable } from "../../migrate/dual-write.js";
import { MIGRATIONS } from "../../migrate/fixtures.testsuite.js";
import { readShards } from "../../migrate/job/job-rows.js";
import type { JobStatus } from "../../migrate/job/job-status.js";
import type { JobEvent } from "../../migrate/job/run-task.js";
import { BigtableStore } from "../../store/bigtable/bigtable.js";
import type { Store, StoreMutation } from "../../store/store.js";
import { SaltedTable } from "../../table/salted-table.js";

const { from, to } = MIGRATIONS[0]!;
const BIN = resolve("dist/cli/main.js");
const dir = mkdtempSync(join(tmpdir(), "keyspread-job-cli-"));
const unique = () => `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
const fromSchema = join(dir, "from.json");
const toSchema = join(dir, "to.json");
writeFileSync(fromSchema, JSON.stringify(from.spec));
writeFileSync(toSchema, JSON.stringify(to.spec));

const deviceOf = (i: number) => `dev-${i % 997}`;
const tsOf = (i: number) => 1_700_000_000_000 + i;

/** A new, empty table (as `keyspread table create` makes one before the job). */
async function emptyTable(): Promise<{ store: BigtableStore; address: string }> {
  const tableId = `jobnew${unique()}`;
  return { store: await BigtableStore.createTable({ tableId }), address: `bigtable:${tableId}` };
}

/** A source table of `rows` rows, loaded in big batches straight through the store. */
async function sourceTable(rows: number): Promise<{ store: BigtableStore; address: string }> {
  const tableId = `jobold${unique()}`;
  const store = await BigtableStore.createTable({ tableId });
  await SaltedTable.open(store, from, { create: true });
  const BATCH = 10_000;
  const batches = Array.from({ length: Math.ceil(rows / BATCH) }, (_, b) => b);
  for (let at = 0; at < batches.length; at += 4) {
    await Promise.all(
      batches.slice(at, at + 4).map(async (b) => {
        const mutations: StoreMutation[] = [];
        for (let i = b * BATCH; i < Math.min(rows, (b + 1) * BATCH); i++) {
          mutations.push({
            type: "put",
            key: from.encode({ deviceId: deviceOf(i), ts: tsOf(i) }),
            cells: new Map([["value", Buffer.from(`v0-${i}`)]]),
          });
        }
        const { failed } = await store.write(mutations);
        if (failed.length > 0) throw new Error(`load failed: ${failed[0]!.reason}`);
      }),
    );
  }
  return { store, address: `bigtable:${tableId}` };
}

interface Task {
  index: number;
  child: ChildProcess;
  events: JobEvent[];
  stdout: string;
  exit: Promise<number | null>;
}

/** One task process in a new empty working directory, as an engine starts one. */
function startTask(command: "backfill" | "validate", index: number, args: string[]): Task {
  const cwd = mkdtempSync(join(dir, `task-${index}-`));
  const child = spawn("node", [BIN, "migrate", command, ...args, "--task-index", String(index)], { cwd });
  const task: Task = { index, child, events: [], stdout: "", exit: undefined as never };
  let pending = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split("\n");
    pending = lines.pop()!;
    for (const line of lines) {
      if (line.startsWith("{")) task.events.push(JSON.parse(line) as JobEvent);
      else if (line.trim() !== "") process.stderr.write(`task ${index}: ${line}\n`);
    }
  });
  child.stdout!.on("data", (chunk: Buffer) => {
    task.stdout += chunk.toString();
  });
  task.exit = new Promise((done) => child.on("exit", (code) => done(code)));
  return task;
}

function pairArgs(source: string, target: string): string[] {
  return ["--from", source, "--from-schema", fromSchema, "--to", target, "--to-schema", toSchema];
}

function cli(args: string[]) {
  const result = spawnSync("node", [BIN, ...args], { encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function status(target: string): JobStatus[] {
  const result = cli(["migrate", "status", "--to", target, "--json"]);
  expect(result.stderr).toBe("");
  return JSON.parse(result.stdout) as JobStatus[];
}

/** Every source row, re-keyed, is in the target with the same cells, and the target has no other row. */
async function expectSameRows(source: Store, target: Store): Promise<number> {
  const expected = new Map<string, string>();
  for await (const row of source.read([{ start: Buffer.alloc(0), end: Buffer.alloc(8, 0xff) }])) {
    const key = to.encode(from.decode(row.key).values).toString("hex");
    expected.set(key, row.cells.get("value")!.toString());
  }
  let matched = 0;
  const wrong: string[] = [];
  for await (const row of target.read([{ start: Buffer.alloc(0), end: Buffer.alloc(8, 0xff) }])) {
    const hex = row.key.toString("hex");
    if (expected.get(hex) === row.cells.get("value")?.toString()) matched++;
    else wrong.push(`${hex}: ${row.cells.get("value")} (source ${expected.get(hex)})`);
  }
  expect(wrong.slice(0, 5)).toEqual([]);
  expect(matched).toBe(expected.size);
  return matched;
}

describe("migrate backfill/validate --tasks: an indexed job on the emulator", () => {
  it("8 tasks copy 200,000 rows in 64 shards through random SIGKILLs and restarts; validate finds 0 differences; status shows every shard done", {
    timeout: 600_000,
  }, async () => {
    const ROWS = 200_000;
    const { store: source, address } = await sourceTable(ROWS);
    const { store: newStore, address: target } = await emptyTable();
    const args = [...pairArgs(address, target), "--tasks", "8", "--shards", "64", "--lease-seconds", "2"];
    const running = new Map<number, Task>();
    for (let index = 0; index < 8; index++) running.set(index, startTask("backfill", index, args));
    let kills = 0;
    const exits: number[] = [];
    // Kill a random running task every so often (six times), restarting it as an engine would.
    while (running.size > 0) {
      const settled = await Promise.race([
        ...[...running.values()].map((task) => task.exit.then((code) => ({ task, code }))),
        new Promise<undefined>((done) => setTimeout(() => done(undefined), 400 + Math.random() * 1200)),
      ]);
      if (settled !== undefined) {
        running.delete(settled.task.index);
        exits.push(settled.code ?? -1);
        continue;
      }
      if (kills >= 6) continue;
      const victims = [...running.values()];
      const victim = victims[Math.floor(Math.random() * victims.length)]!;
      victim.child.kill("SIGKILL");
      await victim.exit;
      kills++;
      running.set(victim.index, startTask("backfill", victim.index, args));
    }
    expect(exits).toEqual(Array(8).fill(0));
    expect(kills).toBeGreaterThan(0);
    const [backfill] = status(target);
    expect(backfill).toMatchObject({
      kind: "backfill",
      rows: ROWS,
      shards: { total: 64, done: 64, claimed: 0, free: 0, failed: 0 },
    });

    const validators = [0, 1].map((index) =>
      startTask("validate", index, [...pairArgs(address, target), "--tasks", "2", "--shards", "16"]),
    );
    expect(await Promise.all(validators.map((task) => task.exit))).toEqual([0, 0]);
    const statuses = status(target);
    expect(statuses.find((s) => s.kind === "validate")).toMatchObject({
      shards: { total: 16, done: 16 },
      rows: 2 * ROWS,
      differences: { count: 0 },
    });
    await Promise.all([source.close(), newStore.close()]);
  });

  it("a task frozen past its lease loses its shard and writes nothing more to it; rows updated in place by a dual-writing client end with their latest value; a second migration is refused", {
    timeout: 300_000,
  }, async () => {
    const ROWS = 20_000;
    const { store: source, address } = await sourceTable(ROWS);
    const { store: newStore, address: target } = await emptyTable();
    const args = [
      ...pairArgs(address, target),
      "--tasks",
      "3",
      "--shards",
      "12",
      "--lease-seconds",
      "1",
      "--rate",
      "1500",
      "--batch",
      "100",
      "--log-batches",
    ];
    const tasks = [0, 1, 2].map((index) => startTask("backfill", index, args));
    const frozen = tasks[0]!;
    await expect.poll(() => frozen.events.some((e) => e.event === "writing"), { timeout: 60_000 }).toBe(true);

    // The dual-writing client: rows updated in place on both tables, each row again only after all others.
    const dual = new DualWriteTable(
      await SaltedTable.open(source, from),
      await SaltedTable.open(newStore, to, { create: true }),
    );
    const order = Array.from({ length: ROWS }, (_, i) => i).sort(() => Math.random() - 0.5);
    let writing = true;
    let updates = 0;
    const writer = (async () => {
      for (let round = 1; writing; round++) {
        const batch = order.slice((round * 200) % ROWS, ((round * 200) % ROWS) + 200);
        const { failed } = await dual.putMany(
          batch.map((i) => ({
            values: { deviceId: deviceOf(i), ts: tsOf(i) },
            cells: { value: `v${round}-${i}` },
          })),
        );
        if (failed.length > 0) throw new Error(`dual write failed: ${failed[0]!.reason}`);
        updates += batch.length;
      }
    })();

    frozen.child.kill("SIGSTOP");
    const stoppedAt = Date.now();
    const held = frozen.events.filter((e) => e.event === "claimed").at(-1)!.shard;
    // Another task takes the frozen task's shard once its lease lapses.
    await expect
      .poll(
        async () => {
          const shards = await readShards(newStore, "backfill", 12);
          const shard = shards[held]!;
          return shard.progress?.complete === true || (shard.lease?.task ?? 0) !== 0;
        },
        { timeout: 60_000, interval: 100 },
      )
      .toBe(true);
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(1000);
    const wokenAt = Date.now();
    frozen.child.kill("SIGCONT");

    expect(await Promise.all(tasks.map((task) => task.exit))).toEqual([0, 0, 0]);
    writing = false;
    await writer;
    expect(updates).toBeGreaterThan(0);
    // The woken task found out and wrote nothing more to the shard it lost.
    expect(frozen.events).toContainEqual(expect.objectContaining({ event: "lost", shard: held }));
    expect(frozen.events.filter((e) => e.event === "writing" && e.shard === held && e.at >= wokenAt)).toEqual(
      [],
    );
    expect(status(target)[0]).toMatchObject({ shards: { done: 12, failed: 0 } });
    expect(await expectSameRows(source, newStore)).toBe(ROWS);

    // One table takes one migration; one plan.
    const other = await sourceTable(10);
    /** Task 0 of a backfill into the same table, refused: its stderr. */
    const refused = (from: string, ...flags: string[]) => {
      const run = cli(["migrate", "backfill", ...pairArgs(from, target), "--task-index", "0", ...flags]);
      expect(run.code).toBe(1);
      return run.stderr;
    };
    expect(refused(other.address, "--tasks", "1")).toContain(
      `already holds a backfill job (from ${source.name}`,
    );
    expect(refused(address, "--tasks", "2", "--shards", "16")).toContain(
      "asks for 16 shards (drop --shards to use the plan's 12)",
    );
    // The embedded store is one process's: no job there.
    expect(refused(`embedded:${dir}/solo`, "--tasks", "1")).toContain(
      "is an embedded table, one process's own",
    );
    await Promise.all([source.close(), newStore.close(), other.store.close()]);
  });
});

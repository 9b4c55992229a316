/**
 * The fleet incident's re-key runbook end to end, on the built bin, with `keyspread serve` live and ingesting
 * all along: create the new table (salted, pre-split), begin, dual-write, backfill (killed with
 * SIGKILL once and resumed), validate (0 differences), cut reads, cut writes, done, drop the old
 * table, a crash and restart after it — then every acknowledged point is in the new table exactly
 * once. On the embedded store the service runs the backfill (the tables open in one process only),
 * so the kill takes the service down mid-backfill; on the emulator a separate `migrate backfill`
 * process is killed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { Bigtable } from "@google-cloud/bigtable";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { readBackfillCheckpoint } from "../../migrate/checkpoint.js";
import { readMigrationRecord } from "../../migrate/live/migration-record.js";
import { metricsSchema } from "../../serve/ingest/points/metrics-schema.js";
import { decodeMetricPoints, METRIC_POINTS_QUALIFIER } from "../../serve/ingest/points/point-codec.js";
import { createTableRequest } from "../../store/bigtable/emulator-requests.testsuite.js";
import { openStore } from "../../store/open/open.js";
import { openStoreAt, parseStoreAddress } from "../../store/open/store-address.js";
import { SaltedTable } from "../../table/salted-table.js";
import { runbookSteps } from "./runbook-steps.testsuite.js";

const INTERVAL = 250;
const DEVICES = 20;
const T0 = 1_764_484_000_000;
const BIN = "dist/cli/main.js";

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command without blocking the event loop (the load keeps going meanwhile). */
function cli(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

async function ok(args: string[]): Promise<string> {
  const run = await cli(args);
  expect(run.code, `keyspread ${args.join(" ")}: ${run.stderr}`).toBe(0);
  return run.stdout;
}

const lastJson = (text: string) => JSON.parse(text.trim().split("\n").at(-1)!);

interface Service {
  child: ChildProcess;
  url: string;
  stderr: () => string;
}

function startService(args: string[]): Promise<Service> {
  const child = spawn(process.execPath, [BIN, "serve", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", (line) =>
      resolve({ child, url: (JSON.parse(line) as { url: string }).url, stderr: () => stderr }),
    );
    child.once("exit", (code) => reject(new Error(`serve exited with ${code} before listening: ${stderr}`)));
  });
}

const exited = (child: ChildProcess) =>
  new Promise<NodeJS.Signals | number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.signalCode ?? child.exitCode);
    else child.once("exit", (code, signal) => resolve(signal ?? code));
  });

/**
 * Clients posting batches of points, each with its own timestamp, to whatever service runs now:
 * a point counts as acknowledged only on a 200. Points of refused or broken requests are "sent"
 * (a request cut off by a kill may have been logged before its answer was lost).
 */
class Load {
  readonly acked = new Set<string>();
  readonly sent = new Set<string>();
  private next = 0;
  private stopped = false;
  private readonly clients: Promise<void>[];

  constructor(private readonly service: () => string | undefined) {
    this.clients = [0, 1].map(() => this.client());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.clients);
  }

  private async client(): Promise<void> {
    while (!this.stopped) {
      const url = this.service();
      const batch = Array.from({ length: 20 }, () => {
        const n = this.next++;
        return { tenant: "acme", deviceId: `dev-${n % DEVICES}`, ts: T0 + n, metrics: { v: n } };
      });
      const keys = batch.map((p) => `${p.deviceId}@${p.ts}`);
      for (const key of keys) this.sent.add(key);
      try {
        if (url === undefined) throw new Error("no service");
        const res = await fetch(`${url}/v1/ingest`, {
          method: "POST",
          headers: { "content-type": "application/x-ndjson" },
          body: batch.map((p) => JSON.stringify(p)).join("\n"),
        });
        await res.arrayBuffer();
        if (res.status === 200) for (const key of keys) this.acked.add(key);
      } catch {
        // The service is down (killed, restarting): not acknowledged.
      }
      await sleep(25); // the load's pace (~40 batches/s a client), not a wait for anything
    }
  }
}

/** Every point in the table, with how often each appears. */
async function pointsIn(address: string, buckets: number): Promise<Map<string, number>> {
  const store = await openStoreAt(parseStoreAddress(address), { mustExist: true });
  const counts = new Map<string, number>();
  try {
    const table = await SaltedTable.open(store, metricsSchema(buckets, INTERVAL));
    for await (const row of table.scan({})) {
      const deviceId = row.values.deviceId as string;
      for (const point of decodeMetricPoints(
        row.cells.get(METRIC_POINTS_QUALIFIER)!,
        deviceId,
        row.values.interval as number,
      )) {
        const key = `${point.deviceId}@${point.ts}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
  } finally {
    await store.close();
  }
  return counts;
}

const unique = () => `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

/** Resolves once the clients have had `more` points acknowledged beyond what they have now. */
async function moreAcknowledged(load: Load, more: number): Promise<void> {
  const target = load.acked.size + more;
  await expect.poll(() => load.acked.size, { timeout: 60_000 }).toBeGreaterThanOrEqual(target);
}

/** Rows the backfill must have read before it is killed (a few checkpoints of 10, well before its end). */
const ROWS_BEFORE_KILL = 45;

describe.each([
  { store: "embedded" as const, backfill: "by the service, killed with it" },
  { store: "bigtable" as const, backfill: "in its own process, killed" },
])("live re-keying under ingest on the $store store (backfill $backfill)", ({ store }) => {
  // Each step spawns the CLI a few times beside the live service: a minute or more on a busy machine.
  const step = runbookSteps(120_000);
  const dir = mkdtempSync(join(tmpdir(), `live-migration-${store}-`));
  const id = unique();
  const [oldTable, newTable] = [`old-${id}`, `new-${id}`];
  const address = (table: string) =>
    store === "embedded" ? `embedded:${dir}/${table}` : `bigtable:${table}`;
  const tableArgs = (table: string) =>
    store === "embedded"
      ? ["--store", "embedded", "--dir", dir, "--table", table]
      : ["--store", "bigtable", "--table", table];
  const migration = join(dir, "metrics.migration.json");
  const oldSchema = join(dir, "old.json");
  const newSchema = join(dir, "new.json");
  const pair = [
    "--from",
    address(oldTable),
    "--from-schema",
    oldSchema,
    "--to",
    address(newTable),
    "--to-schema",
    newSchema,
  ];
  const serveArgs = [
    ...tableArgs(oldTable),
    "--dir",
    dir,
    "--buckets",
    "1",
    "--interval",
    `${INTERVAL}ms`,
    "--port",
    "0",
    "--cache-ttl",
    "0s",
    "--migration",
    migration,
  ];
  const advance = (from: string, to: string) =>
    ok(["migrate", "advance", "--migration", migration, "--from", from, "--to", to, "--wait", "60"]);
  const readProgress = async (checkpoint: string) =>
    (await readBackfillCheckpoint(checkpoint))?.rowsRead ?? 0;

  let service: Service | undefined;
  let load: Load | undefined;
  let backfilled: { rowsRead: number };
  const running = () => load!;
  const restart = async () => {
    service!.child.kill("SIGKILL");
    expect(await exited(service!.child)).toBe("SIGKILL");
    service = undefined;
    service = await startService(serveArgs);
  };
  const stop = async () => {
    await load?.stop();
    const last = service;
    service = undefined;
    if (last) {
      last.child.kill("SIGTERM");
      expect(await exited(last.child)).toBe(0);
    }
  };

  // The hot design (one bucket: every device in one range) → 16 salt buckets.
  beforeAll(async () => {
    writeFileSync(oldSchema, await ok(["serve", "schema", "--buckets", "1", "--interval", `${INTERVAL}ms`]));
    writeFileSync(newSchema, await ok(["serve", "schema", "--buckets", "16", "--interval", `${INTERVAL}ms`]));
    if (store === "bigtable") await (await openStore("bigtable", { table: oldTable, create: true })).close();
    service = await startService(serveArgs);
    load = new Load(() => service?.url);
  });
  afterAll(stop);

  step("ingests into the old table alone first: the rows the backfill will copy", async () => {
    // 1,000 points: 4 intervals of 20 devices, ~80 rows, more than the backfill reads before its kill.
    await moreAcknowledged(running(), 1_000);
  });

  step("1. creates the new table, salted and pre-split (one tablet per bucket on Bigtable)", async () => {
    await ok(["table", "create", "--schema", newSchema, ...tableArgs(newTable)]);
    if (store === "bigtable") expect(createTableRequest(newTable).initialSplits).toHaveLength(15);
    const plan = await ok(["migrate", "plan", ...pair, "--migration", migration]);
    expect(plan).toContain(
      `keyspread migrate advance --migration ${migration} --from single --to dual-write`,
    );
  });

  step(
    "2–3. records the migration and dual-writes (advance returns once the service applied it)",
    async () => {
      await ok(["migrate", "begin", "--migration", migration, ...pair]);
      expect(lastJson(await advance("single", "dual-write"))).toMatchObject({
        phase: "dual-write",
        applied: true,
      });
      expect((await readMigrationRecord(migration))!.service!.dualWriteFrom).toBeGreaterThan(0);
    },
  );

  step(
    "4. backfills, killed once with SIGKILL and resumed from its checkpoint",
    async () => {
      if (store === "embedded") {
        const follower = cli([
          "migrate",
          "backfill",
          "--migration",
          migration,
          "--rate",
          "100",
          "--batch",
          "10",
        ]);
        const recordedCheckpoint = async () => (await readMigrationRecord(migration))?.backfill?.checkpoint;
        await expect.poll(recordedCheckpoint, { timeout: 60_000 }).toBeDefined();
        const checkpoint = (await recordedCheckpoint())!;
        await expect
          .poll(() => readProgress(checkpoint), { timeout: 60_000 })
          .toBeGreaterThanOrEqual(ROWS_BEFORE_KILL);
        await restart(); // the service dies mid-backfill; the restarted one resumes it from its checkpoint
        const done = await follower;
        expect(done.code, done.stderr).toBe(0);
        backfilled = lastJson(done.stdout);
        expect(backfilled).toMatchObject({ state: "complete", runs: 2 });
      } else {
        const checkpoint = join(dir, "backfill.json");
        const args = ["migrate", "backfill", ...pair, "--checkpoint", checkpoint, "--batch", "10"];
        const child = spawn(process.execPath, [BIN, ...args, "--rate", "100"], { stdio: "ignore" });
        await expect
          .poll(() => readProgress(checkpoint), { timeout: 60_000 })
          .toBeGreaterThanOrEqual(ROWS_BEFORE_KILL);
        child.kill("SIGKILL");
        expect(await exited(child)).toBe("SIGKILL");
        const killedAt = (await readBackfillCheckpoint(checkpoint))!;
        expect(killedAt.complete).toBe(false);
        backfilled = lastJson(await ok(args));
        expect(backfilled).toMatchObject({ resumedFrom: killedAt.lastKey });
      }
      expect(backfilled.rowsRead).toBeGreaterThan(ROWS_BEFORE_KILL);
    },
    300_000,
  );

  step("5. validates while the service writes: zero differences", async () => {
    const validated = await cli(["migrate", "validate", "--migration", migration]);
    expect(validated.code, validated.stdout + validated.stderr).toBe(0);
    const summary = lastJson(validated.stdout);
    expect(summary).toMatchObject({ differences: 0, entities: { fields: ["tenant", "deviceId"] } });
    // 100 rows sampled from 20 devices' rows: nearly always every device.
    expect(summary.entities.compared).toBeGreaterThan(DEVICES / 2);
    expect(summary.source.rows).toBeGreaterThan(backfilled.rowsRead / 2);
    expect(summary.target.checksum).toBe(summary.source.checksum);
  });

  step("6–8. cuts reads, cuts writes, done", async () => {
    expect(lastJson(await advance("dual-write", "reads-on-new"))).toMatchObject({ applied: true });
    expect(lastJson(await advance("reads-on-new", "writes-on-new"))).toMatchObject({ applied: true });
    expect(lastJson(await advance("writes-on-new", "done"))).toMatchObject({ applied: true });
  });

  step("drops the old table; the service goes on acknowledging", async () => {
    if (store === "embedded") await rm(join(dir, oldTable), { recursive: true });
    else {
      const admin = new Bigtable({ projectId: "keyspread", metricsEnabled: false });
      await admin.instance("keyspread").table(oldTable).delete();
      await admin.close();
    }
    await moreAcknowledged(running(), 500);
  });

  step("restarts after a crash in `done` without the old table and goes on acknowledging", async () => {
    await restart();
    await moreAcknowledged(running(), 500);
  });

  step("stops on SIGTERM with exit code 0", stop);

  step("stores every acknowledged point in the new table exactly once, and nothing never sent", async () => {
    const { acked, sent } = running();
    const stored = await pointsIn(address(newTable), 16);
    const missing = [...acked].filter((key) => !stored.has(key));
    const doubled = [...stored].filter(([, count]) => count > 1);
    const unknown = [...stored.keys()].filter((key) => !sent.has(key));
    const readBack = [...acked].filter((key) => stored.get(key) === 1).length;
    console.log(
      JSON.stringify({
        liveMigration: store,
        pointsAcked: acked.size,
        ackedReadBackOnce: readBack,
        unackedButStored: stored.size - readBack,
        missing: missing.length,
        doubled: doubled.length,
      }),
    );
    expect(acked.size).toBeGreaterThan(5000);
    expect(missing.slice(0, 10)).toEqual([]);
    expect(doubled.slice(0, 10)).toEqual([]);
    expect(unknown.slice(0, 10)).toEqual([]);
    expect(readBack).toBe(acked.size);
  });
});

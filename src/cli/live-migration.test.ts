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
import { describe, expect, it } from "vitest";
import { readBackfillCheckpoint } from "../migrate/checkpoint.js";
import { readMigrationRecord } from "../migrate/live/migration-record.js";
import { metricsSchema } from "../serve/ingest/metrics-schema.js";
import { decodeMetricPoints, METRIC_POINTS_QUALIFIER } from "../serve/ingest/point-codec.js";
import { createTableRequest } from "../store/emulator-requests.testsuite.js";
import { openStore } from "../store/open.js";
import { openStoreAt, parseStoreAddress } from "../store/store-address.js";
import { SaltedTable } from "../table/salted-table.js";

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
      await sleep(25);
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

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Rows the service has written to its tables since it started (its metrics). */
async function rowsWritten(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return [...text.matchAll(/^keyspread_store_rows_written_total\{[^}]*\} (\d+)$/gm)].reduce(
    (sum, [, count]) => sum + Number(count),
    0,
  );
}

/** Waits until the load has `more` points acknowledged beyond those acknowledged now. */
async function moreAcked(load: Load, more: number): Promise<void> {
  const target = load.acked.size + more;
  await waitFor(`${more} more acknowledged points`, async () => load.acked.size >= target || undefined);
}

const unique = () => `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

describe.each([
  { store: "embedded" as const, backfill: "by the service, killed with it" },
  { store: "bigtable" as const, backfill: "in its own process, killed" },
])("live re-keying under ingest on the $store store (backfill $backfill)", ({ store }) => {
  it("loses no acknowledged point and stores each exactly once in the new table", async () => {
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
    // The hot design (one bucket: every device in one range) → 16 salt buckets.
    writeFileSync(oldSchema, await ok(["serve", "schema", "--buckets", "1", "--interval", String(INTERVAL)]));
    writeFileSync(
      newSchema,
      await ok(["serve", "schema", "--buckets", "16", "--interval", String(INTERVAL)]),
    );
    if (store === "bigtable") await (await openStore("bigtable", { table: oldTable, create: true })).close();
    const serveArgs = [
      ...tableArgs(oldTable),
      "--dir",
      dir,
      "--buckets",
      "1",
      "--interval",
      String(INTERVAL),
      "--port",
      "0",
      "--cache-ttl",
      "0",
      "--migration",
      migration,
    ];
    let service: Service | undefined = await startService(serveArgs);
    const load = new Load(() => service?.url);
    const restart = async () => {
      service!.child.kill("SIGKILL");
      expect(await exited(service!.child)).toBe("SIGKILL");
      service = undefined;
      service = await startService(serveArgs);
    };
    try {
      // Rows the old table alone gets: the backfill's work (it reads more than 45 of them below).
      await waitFor(
        "rows in the old table",
        async () => (await rowsWritten(service!.url)) >= 100 || undefined,
      );

      // 1. The new table, salted and pre-split (one tablet per bucket on Bigtable).
      await ok(["table", "create", "--schema", newSchema, ...tableArgs(newTable)]);
      if (store === "bigtable") expect(createTableRequest(newTable).initialSplits).toHaveLength(15);
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
      const plan = await ok(["migrate", "plan", ...pair, "--migration", migration]);
      expect(plan).toContain(
        `keyspread migrate advance --migration ${migration} --from single --to dual-write`,
      );

      // 2–3. Record the migration; dual-write (returns once the service applied it).
      await ok(["migrate", "begin", "--migration", migration, ...pair]);
      const advance = (from: string, to: string) =>
        ok(["migrate", "advance", "--migration", migration, "--from", from, "--to", to, "--wait", "60"]);
      expect(lastJson(await advance("single", "dual-write"))).toMatchObject({
        phase: "dual-write",
        applied: true,
      });

      // 4. Backfill, killed once with SIGKILL and resumed.
      const oldRows = (await readMigrationRecord(migration))!.service!.dualWriteFrom;
      expect(oldRows).toBeGreaterThan(0);
      let backfilled: { rowsRead: number };
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
        const checkpoint = await waitFor(
          "the service's backfill",
          async () => (await readMigrationRecord(migration))?.backfill?.checkpoint,
        );
        await waitFor(
          "backfill progress",
          async () => ((await readBackfillCheckpoint(checkpoint))?.rowsRead ?? 0) >= 45 || undefined,
        );
        await restart(); // the service dies mid-backfill; the restarted one resumes it from its checkpoint
        const done = await follower;
        expect(done.code, done.stderr).toBe(0);
        backfilled = lastJson(done.stdout);
        expect(backfilled).toMatchObject({ state: "complete", runs: 2 });
      } else {
        const checkpoint = join(dir, "backfill.json");
        const args = ["migrate", "backfill", ...pair, "--checkpoint", checkpoint, "--batch", "10"];
        const child = spawn(process.execPath, [BIN, ...args, "--rate", "100"], { stdio: "ignore" });
        await waitFor(
          "backfill progress",
          async () => ((await readBackfillCheckpoint(checkpoint))?.rowsRead ?? 0) >= 45 || undefined,
        );
        child.kill("SIGKILL");
        expect(await exited(child)).toBe("SIGKILL");
        const killedAt = (await readBackfillCheckpoint(checkpoint))!;
        expect(killedAt.complete).toBe(false);
        backfilled = lastJson(await ok(args));
        expect(backfilled).toMatchObject({ resumedFrom: killedAt.lastKey });
      }
      expect(backfilled.rowsRead).toBeGreaterThan(45);

      // 5. Validate while the service writes: zero differences.
      const validated = await cli(["migrate", "validate", "--migration", migration]);
      expect(validated.code, validated.stdout + validated.stderr).toBe(0);
      const summary = lastJson(validated.stdout);
      expect(summary).toMatchObject({ differences: 0, entities: { fields: ["tenant", "deviceId"] } });
      // 100 rows sampled from 20 devices' rows: nearly always every device.
      expect(summary.entities.compared).toBeGreaterThan(DEVICES / 2);
      expect(summary.source.rows).toBeGreaterThan(backfilled.rowsRead / 2);
      expect(summary.target.checksum).toBe(summary.source.checksum);

      // 6–8. Cut reads, cut writes, done; then drop the old table.
      expect(lastJson(await advance("dual-write", "reads-on-new"))).toMatchObject({ applied: true });
      expect(lastJson(await advance("reads-on-new", "writes-on-new"))).toMatchObject({ applied: true });
      expect(lastJson(await advance("writes-on-new", "done"))).toMatchObject({ applied: true });
      if (store === "embedded") await rm(join(dir, oldTable), { recursive: true });
      else {
        const admin = new Bigtable({ projectId: "keyspread", metricsEnabled: false });
        await admin.instance("keyspread").table(oldTable).delete();
        await admin.close();
      }
      await moreAcked(load, 100);
      // A crash after it all: the restarted service starts in `done` without the old table.
      await restart();
      await moreAcked(load, 100);
    } finally {
      await load.stop();
      if (service) {
        service.child.kill("SIGTERM");
        expect(await exited(service.child)).toBe(0);
      }
    }

    // Every acknowledged point is in the new table, exactly once; nothing that was never sent.
    const stored = await pointsIn(address(newTable), 16);
    const missing = [...load.acked].filter((key) => !stored.has(key));
    const doubled = [...stored].filter(([, count]) => count > 1);
    const unknown = [...stored.keys()].filter((key) => !load.sent.has(key));
    const readBack = [...load.acked].filter((key) => stored.get(key) === 1).length;
    console.log(
      JSON.stringify({
        liveMigration: store,
        pointsAcked: load.acked.size,
        ackedReadBackOnce: readBack,
        unackedButStored: stored.size - readBack,
        missing: missing.length,
        doubled: doubled.length,
      }),
    );
    expect(load.acked.size).toBeGreaterThan(5000);
    expect(missing.slice(0, 10)).toEqual([]);
    expect(doubled.slice(0, 10)).toEqual([]);
    expect(unknown.slice(0, 10)).toEqual([]);
    expect(readBack).toBe(load.acked.size);
  }, 300_000);
});

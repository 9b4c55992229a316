/**
 * Three `keyspread serve` replicas (the built bin) writing one table on Google's Bigtable emulator,
 * under round-robin load whose retries go to another replica with the same Idempotency-Key. One
 * replica is SIGKILLed and restarted on its own log directory, then every replica is restarted one
 * at a time with SIGTERM (a rolling update). Every acknowledged point is read back exactly once,
 * no answer is a 500, each drain answers every request it read, and the per-replica quota shares
 * in /metrics sum to the quota, and a copy of a replica's log directory is refused at start.
 */
import { randomUUID } from "node:crypto";
import { copyFile, mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { metricsSchema } from "../../serve/ingest/points/metrics-schema.js";
import { decodeMetricPoints, METRIC_POINTS_QUALIFIER } from "../../serve/ingest/points/point-codec.js";
import { openStore } from "../../store/open/open.js";
import { RESERVED_PREFIX } from "../../table/schema-guard.js";
import { exited, startServe, T0 } from "./serve-process.testsuite.js";

const DEVICES = 8;
const BATCH = 20;
const CLIENTS = 4;
const INTERVAL = 300;
const QUOTA = 900_000;
const DRAIN_DEADLINE_S = 20;

type Replica = Awaited<ReturnType<typeof startServe>> & { dir: string };

describe("keyspread serve as three replicas on one Bigtable table", () => {
  it("loses and doubles no acknowledged point through a kill -9 and a rolling restart under load", async () => {
    const table = `replicas-${randomUUID().slice(0, 8)}`;
    await (await openStore("bigtable", { table, create: true })).close();
    const args = (dir: string) => [
      "--store",
      "bigtable",
      "--table",
      table,
      "--wal",
      join(dir, "wal"),
      "--replica-heartbeat",
      "300ms",
      "--replica-lease",
      "3s",
      "--drain-delay",
      "1s",
      "--drain-deadline",
      `${DRAIN_DEADLINE_S}s`,
      "--quota",
      `acme=${QUOTA}`,
    ];
    const start = async (dir: string): Promise<Replica> => ({ ...(await startServe(dir, args(dir))), dir });
    const dirs = await Promise.all([0, 1, 2].map(() => mkdtemp(join(tmpdir(), "replica-"))));
    const replicas: Replica[] = [];
    for (const dir of dirs) replicas.push(await start(dir));

    // The load: batches of points with unique timestamps, round robin; a failed attempt is retried on the next replica.
    const acked: number[] = [];
    const firstAttempts = new Map<string, number>();
    const retryAnswers = new Map<string, number>();
    const socketErrors = new Map<string, number>();
    let replays = 0;
    let next = 0;
    let turn = 0;
    let stop = false;
    let phase = "steady";
    const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
    const client = async () => {
      while (!stop) {
        const batch = Array.from({ length: BATCH }, () => next++);
        const body = batch
          .map((n) =>
            JSON.stringify({ tenant: "acme", deviceId: `dev-${n % DEVICES}`, ts: T0 + n, metrics: { v: n } }),
          )
          .join("\n");
        const key = randomUUID();
        let target = turn++;
        for (let attempt = 0; ; attempt++, target++) {
          const url = replicas[target % 3]!.url;
          let status: number;
          let replayed: boolean;
          let retryAfter: string | null;
          try {
            const res = await fetch(`${url}/v1/ingest`, {
              method: "POST",
              headers: { "content-type": "application/x-ndjson", "idempotency-key": key },
              body,
            });
            status = res.status;
            replayed = res.headers.get("idempotent-replayed") === "true";
            retryAfter = res.headers.get("retry-after");
            await res.arrayBuffer();
          } catch (error) {
            const cause = (error as { cause?: { code?: string } }).cause?.code ?? "unknown";
            count(socketErrors, `${phase}:${cause}`);
            await sleep(50);
            continue;
          }
          const label = `${phase}:${status}${status === 503 && retryAfter === null ? " without Retry-After" : ""}`;
          count(attempt === 0 ? firstAttempts : retryAnswers, label);
          if (status === 200) {
            if (replayed) replays++;
            acked.push(...batch);
            break;
          }
          await sleep(100);
        }
      }
    };
    const clients = Array.from({ length: CLIENTS }, client);
    const ackedAtLeast = (more: number) => {
      const target = acked.length + more;
      return expect
        .poll(() => acked.length, { timeout: 60_000, interval: 100 })
        .toBeGreaterThanOrEqual(target);
    };

    const drains: {
      replica: number;
      exitCode: number | null;
      seconds: number;
      readyFalseWhileLive: boolean;
    }[] = [];
    try {
      await ackedAtLeast(2_000);
      // kill -9 mid-run, restarted at once on its own log directory (its lease is its own: taken back).
      phase = "kill";
      replicas[0]!.child.kill("SIGKILL");
      await exited(replicas[0]!.child);
      replicas[0] = await start(dirs[0]!);
      await ackedAtLeast(2_000);

      // A rolling restart: each replica in turn is sent SIGTERM, waited for, and started again.
      phase = "rolling";
      for (const index of [1, 2, 0]) {
        const replica = replicas[index]!;
        const started = performance.now();
        replica.child.kill("SIGTERM");
        // Readiness goes false while the replica still answers (it stops accepting after --drain-delay).
        let readyFalseWhileLive = false;
        for (let probe = 0; probe < 40 && !readyFalseWhileLive; probe++) {
          const [ready, live] = await Promise.all([
            fetch(`${replica.url}/readyz`)
              .then((res) => res.status)
              .catch(() => 0),
            fetch(`${replica.url}/healthz`)
              .then((res) => res.status)
              .catch(() => 0),
          ]);
          readyFalseWhileLive = ready === 503 && live === 200;
          if (ready === 0) break;
          await sleep(20);
        }
        const exitCode = await exited(replica.child);
        drains.push({
          replica: index,
          exitCode,
          seconds: (performance.now() - started) / 1000,
          readyFalseWhileLive,
        });
        expect(replica.stderr()).toMatch(/"event":"drain-stopped-accepting","inFlight":0/);
        replicas[index] = await start(dirs[index]!);
        await ackedAtLeast(1_000);
      }
      phase = "after";
      await ackedAtLeast(1_000);
    } finally {
      stop = true;
      await Promise.all(clients);
    }

    // The quota's per-replica shares sum to the quota once all three count three live replicas.
    const shares = async () => {
      let sum = 0;
      for (const replica of replicas) {
        const text = await (await fetch(`${replica.url}/metrics`)).text();
        sum += Number(/keyspread_quota_share_points_per_second\{quota="acme"\} (\S+)/.exec(text)![1]);
      }
      return Math.round(sum);
    };
    await expect.poll(shares, { timeout: 20_000, interval: 200 }).toBe(QUOTA);

    // A copied log directory (the same replica id) is refused while the id's holder lives, naming it.
    const copy = await mkdtemp(join(tmpdir(), "replica-copy-"));
    await mkdir(join(copy, "wal"));
    await copyFile(join(dirs[1]!, "wal", "replica-id"), join(copy, "wal", "replica-id"));
    await expect(start(copy)).rejects.toThrow(
      new RegExp(
        `is held by another live replica: host .*, process ${replicas[1]!.child.pid}, log ${dirs[1]}/wal`,
      ),
    );

    for (const replica of replicas) replica.child.kill("SIGTERM");
    expect(await Promise.all(replicas.map((replica) => exited(replica.child)))).toEqual([0, 0, 0]);

    // Every point in the table, counted.
    const store = await openStore("bigtable", { table });
    const schema = metricsSchema(16, INTERVAL);
    const stored = new Map<number, number>();
    const writers = new Set<string>();
    for await (const row of store.read([{ start: Buffer.alloc(0), end: RESERVED_PREFIX }])) {
      const { values } = schema.decode(row.key);
      writers.add(values.writer as string);
      const points = decodeMetricPoints(
        row.cells.get(METRIC_POINTS_QUALIFIER)!,
        values.deviceId as string,
        values.interval as number,
      );
      for (const point of points) stored.set(point.ts - T0, (stored.get(point.ts - T0) ?? 0) + 1);
    }
    await store.close();
    const missing = acked.filter((n) => !stored.has(n)).length;
    const doubled = [...stored.values()].filter((times) => times > 1).length;
    console.log(
      JSON.stringify({
        missing,
        doubled,
        acknowledged: acked.length,
        stored: stored.size,
        replays,
        writers: writers.size,
        firstAttempts: Object.fromEntries(firstAttempts),
        retryAnswers: Object.fromEntries(retryAnswers),
        socketErrors: Object.fromEntries(socketErrors),
        drains,
      }),
    );
    expect({ missing, doubled }).toEqual({ missing: 0, doubled: 0 });
    expect(writers.size).toBe(3);
    // No 500 at all; a request's first attempt (a fresh key) gets 200, 429 or 503 with Retry-After only.
    const statuses = [...firstAttempts.keys(), ...retryAnswers.keys()].map((label) => label.split(":")[1]!);
    expect(statuses.filter((status) => !["200", "409", "429", "503"].includes(status))).toEqual([]);
    expect([...firstAttempts.keys()].filter((label) => !/:(200|429|503)$/.test(label))).toEqual([]);
    for (const drain of drains) {
      expect(drain.exitCode).toBe(0);
      expect(drain.seconds).toBeLessThan(DRAIN_DEADLINE_S + 2);
      expect(drain.readyFalseWhileLive).toBe(true);
    }
  }, 240_000);
});

/**
 * `keyspread serve` as a real process (the built bin): kill -9 under load loses no acknowledged
 * point, and SIGTERM flushes everything before exiting.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtemp, readdir, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it, vi } from "vitest";

const T0 = 1_764_484_000_000;
const DEVICES = 12;

function startServe(dir: string): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(
    process.execPath,
    ["dist/cli/main.js", "serve", "--dir", dir, "--port", "0", "--interval", "300", "--cache-ttl", "0"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr!.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once("line", (line) =>
      resolve({ child, url: (JSON.parse(line) as { url: string }).url, stderr: () => stderr }),
    );
    child.once("exit", (code) => reject(new Error(`serve exited with ${code} before listening: ${stderr}`)));
  });
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });

async function readAll(url: string, deviceId: string): Promise<Set<number>> {
  const res = await fetch(`${url}/v1/devices/${deviceId}/range?from=0&to=${T0 + 10_000_000}`);
  const body = (await res.json()) as { points: { ts: number }[] };
  return new Set(body.points.map((point) => point.ts));
}

describe("keyspread serve (built bin)", () => {
  it("loses no acknowledged point to kill -9 under load", async () => {
    const dir = await mkdtemp(join(tmpdir(), "serve-kill-"));
    const first = await startServe(dir);
    const acked = new Map<string, number[]>();
    let next = 0;
    let stop = false;
    // Four clients post batches of 100 points until the process dies under them (bounded: 5 s).
    const client = async () => {
      const deadline = Date.now() + 5000;
      while (!stop && Date.now() < deadline) {
        const batch = Array.from({ length: 100 }, () => {
          const n = next++;
          return { tenant: "acme", deviceId: `dev-${n % DEVICES}`, ts: T0 + n, metrics: { v: n } };
        });
        try {
          const res = await fetch(`${first.url}/v1/ingest`, {
            method: "POST",
            headers: { "content-type": "application/x-ndjson" },
            body: batch.map((p) => JSON.stringify(p)).join("\n"),
          });
          if (res.status !== 200) continue;
          for (const p of batch) acked.set(p.deviceId, [...(acked.get(p.deviceId) ?? []), p.ts]);
        } catch {
          return; // connection refused or reset: the process is gone
        }
      }
    };
    const clients = Array.from({ length: 4 }, client);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    first.child.kill("SIGKILL");
    stop = true;
    await Promise.all(clients);
    await exited(first.child);
    const ackedCount = [...acked.values()].reduce((sum, list) => sum + list.length, 0);
    expect(ackedCount).toBeGreaterThan(1000);

    const second = await startServe(dir);
    // The restart replayed the log: acknowledged points that had not reached the store yet.
    await vi.waitFor(() =>
      expect(second.stderr()).toMatch(/"event":"wal-replay","segment":\d+,"points":[1-9]/),
    );
    try {
      for (const [deviceId, list] of acked) {
        const stored = await readAll(second.url, deviceId);
        const missing = list.filter((ts) => !stored.has(ts));
        expect(missing, `${deviceId}: acknowledged but not stored`).toEqual([]);
      }
    } finally {
      second.child.kill("SIGTERM");
      expect(await exited(second.child)).toBe(0);
    }
  });

  it("flushes on SIGTERM and leaves only the empty newest log segment", async () => {
    const dir = await mkdtemp(join(tmpdir(), "serve-term-"));
    const { child, url } = await startServe(dir);
    const res = await fetch(`${url}/v1/ingest`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([{ tenant: "t", deviceId: "d", ts: T0, metrics: { x: 1 } }]),
    });
    expect(res.status).toBe(200);
    child.kill("SIGTERM");
    expect(await exited(child)).toBe(0);
    const wal = join(dir, "metrics.wal");
    const segments = (await readdir(wal)).filter((name) => name.endsWith(".wal"));
    expect(segments).toHaveLength(1);
    expect((await stat(join(wal, segments[0]!))).size).toBe(0);
  });

  it("refuses a Bigtable max age it could not apply", () => {
    const run = spawnSync(
      process.execPath,
      ["dist/cli/main.js", "serve", "--store", "bigtable", "--max-age", "60"],
      {
        encoding: "utf8",
      },
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/--max-age with --store bigtable needs --create/);
  });
});

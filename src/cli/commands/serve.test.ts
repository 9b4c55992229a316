/**
 * `keyspread serve` as a real process (the built bin): kill -9 under load loses no acknowledged
 * point, SIGTERM flushes everything before exiting, two services racing for one log leave one
 * running, and `serve keys` manages the keys of a running `serve --auth`.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, readdir, readFile, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { exited, lastJson, readAll, type ServeExited, startServe, T0 } from "./serve-process.testsuite.js";

const DEVICES = 12;

describe("keyspread serve (built bin)", () => {
  it("loses no acknowledged point to kill -9 under load", async () => {
    const dir = await mkdtemp(join(tmpdir(), "serve-kill-"));
    const first = await startServe(dir);
    const acked = new Map<string, number[]>();
    let next = 0;
    let stop = false;
    // Four clients post batches of 100 points until the process dies under them.
    const client = async () => {
      while (!stop) {
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
    const ackedCount = () => [...acked.values()].reduce((sum, list) => sum + list.length, 0);
    const clients = Array.from({ length: 4 }, client);
    try {
      // Killed under load: once more than 1,000 points were acknowledged, with more on the way.
      await expect.poll(ackedCount, { timeout: 30_000 }).toBeGreaterThan(1000);
    } finally {
      first.child.kill("SIGKILL");
      stop = true;
    }
    await Promise.all(clients);
    await exited(first.child);

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
      ["dist/cli/main.js", "serve", "--store", "bigtable", "--max-age", "60s"],
      {
        encoding: "utf8",
      },
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/--max-age with --store bigtable needs --create/);
  });

  it("takes durations with their unit, and a bare number in the flag's former unit with a deprecation note", () => {
    const schema = (...interval: string[]) =>
      spawnSync(process.execPath, ["dist/cli/main.js", "serve", "schema", "--buckets", "4", ...interval], {
        encoding: "utf8",
      });
    const withUnit = schema("--interval", "2s");
    const bare = schema("--interval", "2000");
    expect({ status: withUnit.status, stderr: withUnit.stderr }).toEqual({ status: 0, stderr: "" });
    expect(bare.stdout).toBe(withUnit.stdout);
    expect(bare.stdout).toBe(schema().stdout);
    expect(bare.stderr).toContain("--interval 2000: a number without a unit is deprecated; write 2s");
  });

  it("lets one of two services started at the same instant on one log run; the other exits naming it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "serve-race-"));
    const both = ["--store", "memory", "--wal", join(dir, "wal")];
    const json = { KEYSPREAD_ERRORS: "json" };
    const results = await Promise.allSettled([startServe(dir, both, json), startServe(dir, both, json)]);
    const running = results.filter((result) => result.status === "fulfilled");
    expect(running).toHaveLength(1);
    const { child } = (running[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof startServe>>>).value;
    const refused = (results.find((result) => result.status === "rejected") as PromiseRejectedResult).reason;
    expect(refused).toMatchObject({ name: "ServeExited", code: 1 });
    const error = lastJson((refused as ServeExited).stderr);
    expect(error).toMatchObject({ name: "WalDirectoryInUse", directory: join(dir, "wal") });
    // The owner file names the running service's process, unless the claim was read before it was written.
    expect([undefined, child.pid]).toContain(error.ownerPid);
    child.kill("SIGTERM");
    expect(await exited(child)).toBe(0);
  });

  it("refuses to listen beyond loopback without --auth, naming --insecure", () => {
    const run = spawnSync(
      process.execPath,
      ["dist/cli/main.js", "serve", "--store", "memory", "--host", "0.0.0.0"],
      {
        encoding: "utf8",
      },
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/refusing to listen on 0\.0\.0\.0 without --auth.*--insecure/);
  });

  it("serves with --auth: keys added and revoked by `serve keys` take effect in the running service", async () => {
    const dir = await mkdtemp(join(tmpdir(), "serve-auth-"));
    const auth = join(dir, "keys.json");
    const keys = (...args: string[]) =>
      spawnSync(process.execPath, ["dist/cli/main.js", "serve", "keys", ...args, "--auth", auth], {
        encoding: "utf8",
      });
    const added = keys("add", "--tenant", "acme", "--scopes", "ingest,read");
    expect(added.status).toBe(0);
    const { id, key } = JSON.parse(added.stdout) as { id: string; key: string };
    expect(await readFile(auth, "utf8")).not.toContain(key);
    const { child, url, stderr } = await startServe(dir, ["--store", "memory", "--auth", auth]);
    try {
      const ingest = (bearer: string) =>
        fetch(`${url}/v1/ingest`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` },
          body: JSON.stringify({ deviceId: "d", ts: T0, metrics: { v: 1 } }),
        });
      expect((await ingest(key)).status).toBe(200);
      const later = JSON.parse(keys("add", "--tenant", "globex", "--scopes", "read").stdout) as {
        key: string;
      };
      await vi.waitFor(
        async () =>
          expect(
            (await fetch(`${url}/v1/devices/d/latest`, { headers: { authorization: `Bearer ${later.key}` } }))
              .status,
          ).toBe(200),
        { timeout: 5000 },
      );
      expect(JSON.parse(keys("list").stdout.split("\n")[0]!)).toMatchObject({
        id,
        tenant: "acme",
        scopes: ["ingest", "read"],
      });
      expect(keys("revoke", id).status).toBe(0);
      // The service's own one-second promise is timed in auth.test.ts; a child process on a busy machine gets more.
      await vi.waitFor(async () => expect((await ingest(key)).status).toBe(401), { timeout: 5000 });
      expect(stderr()).not.toContain(key.slice(20));
    } finally {
      child.kill("SIGTERM");
      expect(await exited(child)).toBe(0);
    }
  });

  it("`serve keys` takes over a dead holder's lock once: racing adds all land, and an empty lock does not block revoke", async () => {
    const dir = await mkdtemp(join(tmpdir(), "serve-keys-lock-"));
    const auth = join(dir, "keys.json");
    const keysRun = (...args: string[]) =>
      new Promise<{ status: number | null; stdout: string }>((resolve) => {
        const child = spawn(process.execPath, ["dist/cli/main.js", "serve", "keys", ...args, "--auth", auth]);
        let stdout = "";
        child.stdout.on("data", (chunk) => {
          stdout += chunk;
        });
        child.once("close", (status) => resolve({ status, stdout }));
      });
    await writeFile(`${auth}.lock`, `${spawnSync(process.execPath, ["-e", ""]).pid}\n`);
    const adds = await Promise.all(
      Array.from({ length: 6 }, (_, i) => keysRun("add", "--tenant", `t${i}`, "--scopes", "ingest")),
    );
    expect(adds.map((add) => add.status)).toEqual([0, 0, 0, 0, 0, 0]);
    const listed = (await keysRun("list")).stdout.trim().split("\n");
    expect(listed.map((line) => (JSON.parse(line) as { tenant: string }).tenant).sort()).toEqual([
      "t0",
      "t1",
      "t2",
      "t3",
      "t4",
      "t5",
    ]);
    // An empty lock, as a writer killed between creating and filling it leaves.
    await writeFile(`${auth}.lock`, "");
    const longAgo = (Date.now() - 60_000) / 1000;
    await utimes(`${auth}.lock`, longAgo, longAgo);
    const { id } = JSON.parse(adds[0]!.stdout) as { id: string };
    expect((await keysRun("revoke", id)).status).toBe(0);
    const revoked = (await keysRun("list")).stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: string; revokedAt?: string })
      .filter((entry) => entry.revokedAt !== undefined);
    expect(revoked.map((entry) => entry.id)).toEqual([id]);
  });
});

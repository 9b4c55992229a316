/**
 * `keyspread serve` (the built bin) killed with SIGKILL exactly at a flushed segment's unlink (after
 * its rows were written and its Idempotency-Keys journaled): strace injects the signal into that
 * system call, no timing involved. After a restart nothing is lost and the keyed request's retry is
 * answered as done.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it, onTestFinished } from "vitest";
import { exited, readAll, startServe, T0 } from "./serve-process.testsuite.js";

/** Attaches strace to every thread of `pid`: the first unlink of `path` kills the process instead. */
async function killAtUnlink(pid: number, path: string): Promise<ChildProcess> {
  const strace = spawn(
    "strace",
    ["-f", "-p", String(pid), "-P", path, "-e", "trace=unlink", "-e", "inject=unlink:signal=KILL"],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: strace.stderr! }).on("line", (line) => {
      // "Process <pid> attached with <n> threads": every thread is traced from here on.
      if (line.includes(`Process ${pid} attached`)) resolve();
    });
    strace.once("exit", (code) => reject(new Error(`strace exited with ${code} before attaching`)));
  });
  return strace;
}

const points = (from: number) =>
  Array.from({ length: 50 }, (_, i) =>
    JSON.stringify({ tenant: "acme", deviceId: "dev-0", ts: T0 + from + i, metrics: { v: i } }),
  ).join("\n");

describe("keyspread serve killed at a flushed segment's unlink", () => {
  it("loses neither request's points and answers the keyed request's retry as done", async (ctx) => {
    if (spawnSync("strace", ["-V"]).status !== 0) return ctx.skip("strace is not installed");
    const dir = await mkdtemp(join(tmpdir(), "serve-unlink-kill-"));
    const first = await startServe(dir, ["--interval", "1s"]);
    onTestFinished(() => void first.child.kill("SIGKILL"));
    const wal = join(dir, "metrics.wal");
    const [segment] = (await readdir(wal)).filter((name) => name.endsWith(".wal"));
    let strace: ChildProcess;
    try {
      strace = await killAtUnlink(first.child.pid!, join(wal, segment!));
    } catch (error) {
      return ctx.skip(`cannot trace the service (no ptrace here?): ${(error as Error).message}`);
    }
    const post = (url: string, body: string, headers: Record<string, string> = {}) =>
      fetch(`${url}/v1/ingest`, {
        method: "POST",
        headers: { "content-type": "application/x-ndjson", ...headers },
        body,
      });
    const key = { "idempotency-key": "crash-at-unlink" };
    expect((await post(first.url, points(0), key)).status).toBe(200);
    expect((await post(first.url, points(50))).status).toBe(200);
    await exited(first.child);
    expect(first.child.signalCode).toBe("SIGKILL");
    await exited(strace);
    expect((await readdir(wal)).filter((name) => name.endsWith(".wal"))).toContain(segment);

    const second = await startServe(dir, ["--interval", "1s"]);
    onTestFinished(() => void second.child.kill("SIGKILL"));
    try {
      const stored = await readAll(second.url, "dev-0");
      expect([...stored].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => T0 + i));
      const retry = await post(second.url, points(0), key);
      expect([retry.status, retry.headers.get("idempotent-replayed"), await retry.json()]).toEqual([
        200,
        "true",
        { accepted: 50 },
      ]);
    } finally {
      second.child.kill("SIGTERM");
      await exited(second.child);
    }
  });
});

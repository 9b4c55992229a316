/**
 * `keyspread serve` (the built bin) on a really small filesystem that fills up while a flush
 * writes the store: the write is cut short, retried once space is back, the segment deleted, and
 * after kill -9 or SIGTERM and a restart every acknowledged point reads back.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { mountSmallFilesystem } from "../../io/small-filesystem.testsuite.js";
import { exited, readAll, startServe, T0 } from "./serve-process.testsuite.js";

const DEVICES = 12;
const REQUESTS = 8;
const POINTS_PER_REQUEST = 6_000;

const segmentsIn = async (dir: string) =>
  (await readdir(join(dir, "metrics.wal"))).filter((name) => name.endsWith(".wal"));

describe("keyspread serve on a disk that fills up during a flush", () => {
  for (const signal of ["SIGKILL", "SIGTERM"] as const) {
    it(`reads back every acknowledged point after the retried flush, ${signal} and a restart`, async (ctx) => {
      const disk = await mountSmallFilesystem(64 * 1024 * 1024);
      if (typeof disk === "string") return ctx.skip(disk);
      try {
        // The first flush is 20 s away: every point below lands in the segment opened at start, and
        // the disk is full before it (posting them took over 5 s on a busy machine: the flush came
        // first and never met the full disk).
        const first = await startServe(disk.path, ["--interval", "20s"]);
        onTestFinished(() => void first.child.kill("SIGKILL"));
        const [segment] = await segmentsIn(disk.path);
        const acked: { deviceId: string; ts: number }[] = [];
        for (let request = 0; request < REQUESTS; request++) {
          const batch = Array.from({ length: POINTS_PER_REQUEST }, (_, i) => {
            const n = request * POINTS_PER_REQUEST + i;
            return { tenant: "acme", deviceId: `dev-${n % DEVICES}`, ts: T0 + n, metrics: { v: n } };
          });
          const res = await fetch(`${first.url}/v1/ingest`, {
            method: "POST",
            headers: { "content-type": "application/x-ndjson" },
            body: batch.map((point) => JSON.stringify(point)).join("\n"),
          });
          expect(res.status).toBe(200);
          acked.push(...batch);
        }
        await disk.fill(64 * 1024);
        await vi.waitFor(() => expect(first.stderr()).toMatch(/"event":"store-write-retry"/), {
          timeout: 20_000,
          interval: 50,
        });
        await disk.free();
        // Every flushed segment deleted: only the newest, opened by the flush, is left.
        await vi.waitFor(
          async () => {
            const left = await segmentsIn(disk.path);
            expect({ segments: left.length, first: left.includes(segment!) }).toEqual({
              segments: 1,
              first: false,
            });
          },
          { timeout: 20_000, interval: 50 },
        );
        first.child.kill(signal);
        await exited(first.child);

        const second = await startServe(disk.path, ["--interval", "20s"]);
        onTestFinished(() => void second.child.kill("SIGKILL"));
        try {
          const missing: number[] = [];
          for (let device = 0; device < DEVICES; device++) {
            const stored = await readAll(second.url, `dev-${device}`);
            for (const point of acked)
              if (point.deviceId === `dev-${device}` && !stored.has(point.ts)) missing.push(point.ts);
          }
          expect({ acknowledged: acked.length, missing: missing.length }).toEqual({
            acknowledged: REQUESTS * POINTS_PER_REQUEST,
            missing: 0,
          });
        } finally {
          second.child.kill("SIGTERM");
          await exited(second.child);
        }
      } finally {
        await disk.unmount();
      }
    });
  }
});

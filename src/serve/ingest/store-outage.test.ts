/** A store that refuses writes for a while: flushes retry, ingest pushes back with 503, nothing is lost. */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { MemoryStore } from "../../store/memory/memory.js";
import { startIngestService } from "../ingest-service.js";

describe("ingest during a store outage", () => {
  it("retries the flush, answers 503 past the pending limit, and stores every acknowledged point", async () => {
    const directory = await mkdtemp(join(tmpdir(), "outage-"));
    const store = new MemoryStore({ name: "outage" });
    const lines: string[] = [];
    const service = await startIngestService({
      store,
      walDirectory: join(directory, "wal"),
      intervalMs: 50,
      maxPendingPoints: 150,
      latestCacheTtlMs: 0,
      log: (line) => lines.push(line),
    });
    store.faults.failWrite = () => "injected outage";
    const post = (from: number) =>
      fetch(`${service.url}/v1/ingest`, {
        method: "POST",
        headers: { "content-type": "application/x-ndjson" },
        body: Array.from({ length: 100 }, (_, i) =>
          JSON.stringify({ tenant: "t", deviceId: "d", ts: 1_764_484_000_000 + from + i, metrics: { v: i } }),
        ).join("\n"),
      });
    expect((await post(0)).status).toBe(200);
    const refused = await post(100);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    await vi.waitFor(() =>
      expect(lines.some((line) => line.includes('"event":"store-write-retry"'))).toBe(true),
    );

    store.faults.failWrite = undefined;
    await vi.waitFor(() => expect(service.pipeline.pendingPoints()).toBe(0), { timeout: 10_000 });
    const latest = await (await fetch(`${service.url}/v1/devices/d/latest?tenant=t&n=1000`)).json();
    expect((latest as { points: unknown[] }).points).toHaveLength(100);
    await service.close();
  });
});

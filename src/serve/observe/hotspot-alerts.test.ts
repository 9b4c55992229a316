/** The monitor wired into the service: a hot bucket and a prefix shift raise alerts, logs and metrics. */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { MemoryStore } from "../../store/memory/memory.js";
import { startIngestService } from "../ingest-service.js";

describe("hotspot alerts in the service", () => {
  it("fires bucket-hot for one device taking every write, and prefix-shift when the mix moves", async () => {
    const directory = await mkdtemp(join(tmpdir(), "hot-"));
    const lines: string[] = [];
    const service = await startIngestService({
      store: new MemoryStore({ name: "hot" }),
      walDirectory: join(directory, "wal"),
      buckets: 4,
      simulatedNodes: 3,
      intervalMs: 50,
      monitorWindowMs: 150,
      alertRules: { sustainMs: 300, minWindowLoad: 1 },
      log: (line) => lines.push(line),
    });
    let ts = 1_764_484_000_000;
    const send = (deviceId: string) =>
      fetch(`${service.url}/v1/ingest`, {
        method: "POST",
        headers: { "content-type": "application/x-ndjson" },
        body: Array.from({ length: 20 }, () =>
          JSON.stringify({ tenant: "acme", deviceId, ts: ts++, metrics: { v: 1 } }),
        ).join("\n"),
      });
    const fired = (pattern: RegExp) => lines.some((line) => pattern.test(line));
    await vi.waitFor(
      async () => {
        await send("aaaaaa-1");
        expect(fired(/"alert":"bucket-hot","subject":"\d","state":"firing"/)).toBe(true);
        expect(fired(/"alert":"node-hot","subject":"\d","state":"firing"/)).toBe(true);
        const metrics = await (await fetch(`${service.url}/metrics`)).text();
        expect(metrics).toMatch(/keyspread_bucket_skew 4/);
        expect(metrics).toMatch(/keyspread_hot_prefix_share\{prefix="aaaaaa",rank="1"\} 1/);
        expect(metrics).toMatch(/keyspread_alert_active\{rule="bucket-hot",subject="\d"\} 1/);
      },
      { timeout: 15_000, interval: 40 },
    );
    await vi.waitFor(
      async () => {
        await send("zzzzzz-1");
        expect(fired(/"alert":"prefix-shift","subject":"\*","state":"firing"/)).toBe(true);
      },
      { timeout: 15_000, interval: 40 },
    );
    await service.close();
  });
});

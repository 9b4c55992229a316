/**
 * The service's graceful stop as a load balancer sees it: readiness goes false first while requests
 * are still served, a request read before the stop is finished (and stored), a request arriving
 * once the service stopped accepting is answered 503 with Retry-After before it reaches the
 * pipeline or the store (never a 500), and the service stops within its drain deadline.
 */

import { mkdtemp } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../store/memory/memory.js";
import { ndjson, point, T0 } from "../ingest/points/points.testsuite.js";
import { startIngestService } from "../ingest-service.js";

const post = (url: string, body: string) =>
  fetch(`${url}/v1/ingest`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body });

describe("the service's drain", () => {
  it("answers readiness 503 before it stops accepting, finishes what it read, and answers late requests 503 with Retry-After", async () => {
    const directory = await mkdtemp(join(tmpdir(), "drain-"));
    const service = await startIngestService({
      store: new MemoryStore(),
      walDirectory: join(directory, "wal"),
      intervalMs: 100,
      drain: { delayMs: 400, deadlineMs: 10_000 },
      log: () => {},
    });
    const { url } = service;
    expect((await fetch(`${url}/readyz`)).status).toBe(200);

    // A request whose body is still arriving when the drain starts.
    const slow = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const req = httpRequest(`${url}/v1/ingest`, {
        method: "POST",
        headers: { "content-type": "application/x-ndjson" },
      });
      req.on("response", (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
      });
      req.on("error", reject);
      req.write(`${JSON.stringify(point("slow", T0))}\n`);
      setTimeout(() => req.end(JSON.stringify(point("slow", T0 + 1))), 800);
    });
    await new Promise((resolve) => setTimeout(resolve, 50));

    const closed = service.close();
    // Draining: not ready, still serving.
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: "draining" });
    expect(service.lifecycle.phase).toBe("draining");
    expect((await post(url, ndjson([point("during", T0)]))).status).toBe(200);

    // The delay over, the service stops accepting; the request it had read is answered 200.
    expect(await slow).toEqual({ status: 200, connection: "close" });
    expect(service.lifecycle.phase).toBe("stopping");
    await closed;
    await expect(fetch(`${url}/readyz`)).rejects.toThrow();

    // Both requests' points were flushed before the store closed.
    expect(service.pipeline.totals.pointsWritten).toBe(3);
  });

  it("answers a request that arrives once it stopped accepting 503 with Retry-After and Connection: close, without touching the pipeline", async () => {
    const directory = await mkdtemp(join(tmpdir(), "drain-"));
    const service = await startIngestService({
      store: new MemoryStore(),
      walDirectory: join(directory, "wal"),
      intervalMs: 100,
      log: () => {},
    });
    service.lifecycle.stop();
    const res = await post(service.url, ndjson([point("late", T0)]));
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.headers.get("connection")).toBe("close");
    expect(service.pipeline.pendingPoints()).toBe(0);
    await service.close();
  });
});

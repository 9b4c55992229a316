import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parseAccessJsonRecord } from "../access-log/access-record.js";
import { BigtableStore } from "../store/bigtable/bigtable.js";
import { requestsOn } from "../store/bigtable/emulator-requests.testsuite.js";
import { EmbeddedStore } from "../store/embedded/embedded.js";
import type { Store } from "../store/store.js";
import { heatmapPageData } from "../viz/render/render.fixture.js";
import { type IngestService, startIngestService } from "./ingest-service.js";

const T0 = 1_764_484_000_000;
const point = (deviceId: string, ts: number, tenant = "acme") => ({
  tenant,
  deviceId,
  ts,
  metrics: { cpu: ts % 100, mem: 1.5 },
});
const ndjson = (points: unknown[]) => points.map((p) => JSON.stringify(p)).join("\n");

async function post(service: IngestService, body: string, contentType = "application/x-ndjson") {
  const res = await fetch(`${service.url}/v1/ingest`, {
    method: "POST",
    headers: { "content-type": contentType },
    body,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

async function get(service: IngestService, path: string) {
  const res = await fetch(`${service.url}${path}`);
  return {
    status: res.status,
    body: (await res.json()) as { points: { ts: number; deviceId: string }[] } & Record<string, unknown>,
  };
}

function describeService(name: string, openStore: (id: string) => Promise<Store>) {
  describe(`ingest service over HTTP on ${name}`, () => {
    let service: IngestService;
    let directory: string;

    beforeAll(async () => {
      directory = await mkdtemp(join(tmpdir(), "serve-"));
      service = await startIngestService({
        store: await openStore(directory),
        walDirectory: join(directory, "wal"),
        intervalMs: 100,
        latestCacheTtlMs: 0,
        accessLogPath: join(directory, "access.jsonl"),
        log: () => {},
      });
    });
    afterAll(async () => service.close());

    it("stores acknowledged points as one row per device per interval and reads them back", async () => {
      const points = [];
      for (let i = 0; i < 50; i++) points.push(point("dev-a", T0 + i * 10), point("dev-b", T0 + i * 10));
      expect(await post(service, ndjson(points))).toMatchObject({ status: 200, body: { accepted: 100 } });
      expect(
        await post(service, JSON.stringify([point("dev-a", T0 + 1000)]), "application/json"),
      ).toMatchObject({
        status: 200,
      });
      await service.pipeline.flush();
      expect(service.pipeline.totals.pointsWritten).toBe(101);
      // 2 devices × 5 intervals of 100 ms, + 1 (more only if the timer split a request's flush).
      expect(service.pipeline.totals.rowsWritten).toBeLessThan(20);

      const latest = await get(service, "/v1/devices/dev-a/latest?tenant=acme&n=3");
      expect(latest.body.points.map((p) => p.ts)).toEqual([T0 + 1000, T0 + 490, T0 + 480]);
      const range = await get(
        service,
        `/v1/devices/dev-b/range?tenant=acme&from=${T0 + 100}&to=${new Date(T0 + 200).toISOString()}`,
      );
      expect(range.body.points.map((p) => p.ts)).toEqual(
        Array.from({ length: 11 }, (_, i) => T0 + 200 - i * 10),
      );
      expect(range.body.points.at(-1)).toEqual(point("dev-b", T0 + 100));
    });

    it("keeps points of one interval that arrive in two flushes", async () => {
      await post(service, ndjson([point("dev-c", T0 + 5)]));
      await service.pipeline.flush();
      await post(service, ndjson([point("dev-c", T0 + 7)]));
      await service.pipeline.flush();
      const latest = await get(service, "/v1/devices/dev-c/latest?tenant=acme&n=1");
      expect(latest.body.points.map((p) => p.ts)).toEqual([T0 + 7]);
      expect((await get(service, "/v1/devices/dev-c/latest?tenant=acme")).body.points).toHaveLength(2);
    });

    it("refuses bad requests cleanly and stores nothing of them", async () => {
      const bad = await post(service, `${JSON.stringify(point("dev-z", T0))}\n{"tenant": 5}`);
      expect(bad.status).toBe(400);
      expect(bad.body.problems).toContainEqual(expect.objectContaining({ line: 2, field: "tenant" }));
      expect((await post(service, "not json at all")).status).toBe(400);
      expect((await post(service, "x", "text/plain")).status).toBe(415);
      expect((await post(service, "x".repeat(17 * 1024 * 1024))).status).toBe(413);
      expect((await get(service, "/v1/devices/dev-a/latest?tenant=acme&n=0")).status).toBe(400);
      expect((await get(service, "/v1/devices/dev-a/range?tenant=acme&from=yesterday&to=1")).status).toBe(
        400,
      );
      expect(
        (await get(service, "/v1/devices/dev-a/range?tenant=acme&from=0&to=99999999999999999999")).status,
      ).toBe(400);
      expect((await get(service, "/v1/devices/%ZZ/latest?tenant=acme")).status).toBe(400);
      expect(await get(service, "/v1/devices/dev-a/latest")).toMatchObject({
        status: 400,
        body: { code: "missing-parameter", parameter: "tenant" },
      });
      expect((await fetch(`${service.url}/v1/ingest`)).status).toBe(405);
      expect((await fetch(`${service.url}/nowhere`)).status).toBe(404);
      await service.pipeline.flush();
      expect((await get(service, "/v1/devices/dev-z/latest?tenant=acme")).body.points).toEqual([]);
    });

    it("exports Prometheus metrics and an access log the heatmap reads", async () => {
      const text = await (await fetch(`${service.url}/metrics`)).text();
      expect(text).toMatch(/keyspread_ingest_points_total\{tenant="acme"\} \d+/);
      expect(text).toMatch(/keyspread_store_points_written_total\{bucket="\d+"\}/);
      expect(text).toMatch(/keyspread_ingest_ack_seconds_bucket/);
      expect(text).toMatch(/keyspread_read_seconds_count\{route="latest"\}/);
      // The log is appended in the background, a batch of whole lines at a time: a read during an
      // append sees a line cut short, so read it once it ends with a line break.
      const log = await vi.waitFor(async () => {
        const text = await readFile(join(directory, "access.jsonl"), "utf8");
        if (!text.endsWith("\n")) throw new Error("the access log is mid-append");
        return text;
      });
      const lines = log.trim().split("\n");
      const records = lines.map(parseAccessJsonRecord);
      expect(records.some((r) => r.op === "write")).toBe(true);
      expect(records.some((r) => r.op === "read")).toBe(true);
      const page = await fetch(`${service.url}/heatmap`);
      expect(page.headers.get("content-type")).toMatch(/text\/html/);
      const html = await page.text();
      expect(/<meta http-equiv="refresh" content="(\d+)">/.exec(html)?.[1]).toBe("10");
      const [design] = heatmapPageData(html).designs;
      expect(design?.name).toBe("keyspread serve: store rows written and read");
      expect(design?.rows.length).toBeGreaterThan(0);
    });
  });
}

describeService("the embedded store", (directory) => EmbeddedStore.open({ table: "metrics", directory }));

let tables = 0;
describeService("Bigtable (emulator)", () =>
  BigtableStore.createTable({
    tableId: `serve${process.pid}_${Date.now().toString(36)}_${tables++}`,
    maxAgeSeconds: 86_400,
  }),
);

describe("serve on Bigtable with an app profile per path", () => {
  it("routes ingest writes, latest-N and range reads through their own profiles (the emulator records them)", async () => {
    const tableId = `serveprofiles${process.pid}_${Date.now().toString(36)}`;
    const dir = await mkdtemp(join(tmpdir(), "keyspread-serve-profiles-"));
    const service = await startIngestService({
      store: await BigtableStore.createTable({ tableId }),
      walDirectory: join(dir, "wal"),
      latestCacheTtlMs: 0,
      appProfiles: { write: "ingest", latest: "single-cluster", scan: "nearest" },
    });
    try {
      expect((await post(service, ndjson([point("dev-a", T0), point("dev-a", T0 + 500)]))).status).toBe(200);
      await service.pipeline.flush();
      expect((await get(service, "/v1/devices/dev-a/latest?tenant=acme&n=1")).body.points).toHaveLength(1);
      expect(
        (await get(service, `/v1/devices/dev-a/range?tenant=acme&from=${T0}&to=${T0 + 1000}`)).body.points,
      ).toHaveLength(2);
    } finally {
      await service.close();
    }
    const writes = requestsOn(tableId).filter((request) => request.method === "MutateRows");
    expect(writes.length).toBeGreaterThan(0);
    expect(new Set(writes.map((request) => request.appProfileId))).toEqual(new Set(["ingest"]));
    const reads = requestsOn(tableId).filter((request) => request.method === "ReadRows");
    expect(reads.map((request) => request.appProfileId)).toContain("single-cluster");
    expect(reads.map((request) => request.appProfileId)).toContain("nearest");
  });
});

/**
 * The ingest service as a hostile client and an unlucky operator find it: poison strings, retries
 * after 200 and after 503, a full disk under the log, malformed JSON of any depth, huge bodies
 * beside a read, invented tenants, and two services started at once on one log.
 */
import { cp, mkdtemp, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { EmbeddedStore } from "../../store/embedded/embedded.js";
import { MemoryStore } from "../../store/memory/memory.js";
import type { Store } from "../../store/store.js";
import { updateApiKeyFile } from "../auth/api-key-file.js";
import { newApiKey } from "../auth/api-keys.js";
import { ndjson, point, T0 } from "../ingest/points/points.testsuite.js";
import { type IngestService, type IngestServiceOptions, startIngestService } from "../ingest-service.js";
import type { DiskFaults } from "../wal/faulty-disk.testsuite.js";
import { WalDirectoryInUse } from "../wal/write-ahead-log.js";

/** The disk under every write-ahead log of this file: a test sets its faults while a service runs. */
const disk = vi.hoisted((): DiskFaults => ({}));
vi.mock("../wal/wal-file-system.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../wal/wal-file-system.js")>();
  const { faultyDisk } = await import("../wal/faulty-disk.testsuite.js");
  return { ...real, nodeWalFileSystem: faultyDisk(real.nodeWalFileSystem, disk) };
});

/** Restarts need a store that outlives its service: `durable` opens the embedded store in `directory`. */
async function start(
  options: Partial<IngestServiceOptions> & { directory?: string; durable?: boolean } = {},
) {
  const directory = options.directory ?? (await mkdtemp(join(tmpdir(), "hostile-")));
  const store: Store = options.durable
    ? await EmbeddedStore.open({ table: "metrics", directory })
    : new MemoryStore({ name: "hostile" });
  const lines: string[] = [];
  const service = await startIngestService({
    walDirectory: join(directory, "wal"),
    intervalMs: 50,
    latestCacheTtlMs: 0,
    log: (line) => lines.push(line),
    ...options,
    store,
  });
  return { service, directory, lines };
}

async function post(service: IngestService, body: string | Buffer, headers: Record<string, string> = {}) {
  const res = await fetch(`${service.url}/v1/ingest`, {
    method: "POST",
    headers: { "content-type": "application/x-ndjson", ...headers },
    body,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

async function stored(service: IngestService, deviceId: string, tenant = "t"): Promise<number[]> {
  await service.pipeline.settle();
  const res = await fetch(
    `${service.url}/v1/devices/${deviceId}/range?tenant=${tenant}&from=0&to=${T0 + 1e9}`,
  );
  return ((await res.json()) as { points: { ts: number }[] }).points
    .map((p) => p.ts - T0)
    .sort((a, b) => a - b);
}

describe("poison", () => {
  it("refuses a lone surrogate at the door, naming line and field, and keeps serving and restarting", async () => {
    const { service, directory } = await start({ durable: true });
    const refused = await post(
      service,
      [JSON.stringify(point("d", T0)), '{"tenant":"t","deviceId":"p\\ud800","ts":1,"metrics":{"v":1}}'].join(
        "\n",
      ),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.problems).toEqual([
      { line: 2, field: "deviceId", message: expect.stringMatching(/lone surrogate/) },
    ]);
    const merged = await post(
      service,
      '{"tenant":"t","deviceId":"d","ts":1,"metrics":{"x\\ud800":1,"x\\ud801":2}}',
    );
    expect(merged.status).toBe(400);
    expect((await post(service, ndjson([point("d", T0 + 1)]))).status).toBe(200);
    await service.close();
    const again = await start({ directory, durable: true });
    expect(await stored(again.service, "d")).toEqual([1]);
    await again.service.close();
  });

  it("answers 400, never 500, to deep or malformed JSON of any shape", async () => {
    const { service } = await start();
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    for (const body of [
      deep,
      `{"tenant":"t","deviceId":${deep},"ts":1,"metrics":{"v":1}}`,
      "{",
      "\u0000",
      "[]",
    ]) {
      for (const type of ["application/x-ndjson", "application/json"]) {
        expect((await post(service, body, { "content-type": type })).status).toBe(400);
      }
    }
    expect((await post(service, Buffer.from([0x7b, 0xff, 0x7d]))).body.problems).toEqual([
      { line: 1, field: "(line)", message: expect.stringMatching(/not valid UTF-8/) },
    ]);
    await service.close();
  });
});

describe("a body read live as the replay reads it", () => {
  it("refuses the issue's body (lines that are not one point each) live; an accepted body replays to the same points", async () => {
    const { service, directory } = await start({ durable: true, intervalMs: 60_000 });
    const line = JSON.stringify(point("d", T0));
    const split = line.indexOf(',"ts"');
    const filler = Array.from({ length: 2_000 }, (_, i) => JSON.stringify(point("d", T0 + i)));
    const fillerText = filler.join("\n");
    const boundary = fillerText.indexOf("\n", 128 * 1024) + 1;
    const withBlank = [fillerText.slice(0, boundary), fillerText.slice(boundary)];
    const bad = [`${line},${line}`, line.slice(0, split), line.slice(split + 1)];
    const refused = await post(service, [...withBlank, ...bad].join("\n"));
    expect(refused.status).toBe(400);
    expect((refused.body.problems as { line: number }[]).map((problem) => problem.line)).toEqual([
      2_002, 2_003, 2_004,
    ]);

    const accepted = await post(service, `${[...withBlank, ""].join("\r\n")}\n`);
    expect(accepted).toMatchObject({ status: 200, body: { accepted: 2_000 } });
    // The log as a crash would leave it (nothing flushed yet), replayed into an empty store.
    const saved = await mkdtemp(join(tmpdir(), "hostile-wal-"));
    await cp(join(directory, "wal"), saved, { recursive: true });
    await service.close();
    await rm(join(directory, "metrics"), { recursive: true });
    await rm(join(directory, "wal"), { recursive: true });
    await cp(saved, join(directory, "wal"), { recursive: true });
    const replayed = await start({ directory, durable: true, intervalMs: 60_000 });
    expect(replayed.service.pipeline.totals.pointsWritten).toBe(2_000);
    expect(await replayed.service.metrics.registry.metrics()).not.toMatch(/keyspread_dead_letters_total\{/);
    await replayed.service.close();
  });
});

describe("Idempotency-Key", () => {
  it("answers a retry after a 200 like the first and stores nothing new, across a restart too", async () => {
    const { service, directory, lines } = await start({ durable: true });
    const body = ndjson([point("d", T0 + 1), point("d", T0 + 2)]);
    const key = { "idempotency-key": '"8e03978e-40d5-43e8-bc93-6894a57f9324"' };
    const first = await post(service, body, key);
    expect(first).toMatchObject({ status: 200, body: { accepted: 2 } });
    const retry = await post(service, body, key);
    expect(retry).toMatchObject({ status: 200, body: { accepted: 2 } });
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect((await post(service, ndjson([point("d", T0 + 3)]), key)).status).toBe(422);
    expect(await stored(service, "d")).toEqual([1, 2]);
    await service.close();
    expect(lines.join("\n")).not.toContain("8e03978e");

    const again = await start({ directory, durable: true });
    expect((await post(again.service, body, key)).status).toBe(200);
    expect(await stored(again.service, "d")).toEqual([1, 2]);
    expect(await again.service.metrics.registry.metrics()).toMatch(/keyspread_idempotent_replays_total 1/);
    await again.service.close();
  });

  it("is refused with 400 when malformed, and answers 409 to a retry racing the first", async () => {
    const { service } = await start();
    expect((await post(service, ndjson([point("d", T0)]), { "idempotency-key": "" })).status).toBe(400);
    const body = ndjson([point("d", T0)]);
    const [a, b] = await Promise.all([
      post(service, body, { "idempotency-key": "race" }),
      post(service, body, { "idempotency-key": "race" }),
    ]);
    expect([a.status, b.status].sort()).toEqual(a.status === b.status ? [200, 200] : [200, 409]);
    expect(await stored(service, "d")).toEqual([0]);
    await service.close();
  });
});

describe("Idempotency-Key without --auth", () => {
  it("is scoped by the tenants a body names: tenant beta may reuse a key tenant alpha used", async () => {
    const { service } = await start();
    const key = { "idempotency-key": "shared-key" };
    const alpha = ndjson([point("d", T0 + 1, "alpha")]);
    const beta = ndjson([point("d", T0 + 2, "beta")]);
    expect((await post(service, alpha, key)).status).toBe(200);
    expect((await post(service, beta, key)).status).toBe(200);
    for (const body of [alpha, beta]) {
      const retry = await post(service, body, key);
      expect([retry.status, retry.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
    }
    expect([await stored(service, "d", "alpha"), await stored(service, "d", "beta")]).toEqual([[1], [2]]);
    await service.close();
  });
});

describe("a full disk under the write-ahead log", () => {
  it("answers 503 and stores nothing of the request; the retry after it is stored once", async () => {
    const { service, directory } = await start({ durable: true });
    expect((await post(service, ndjson([point("d", T0)]))).status).toBe(200);
    const enospc = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    disk.write = (bytes) => ({ error: enospc, written: Math.floor(bytes / 3) });
    const body = ndjson([point("d", T0 + 1), point("d", T0 + 2)]);
    const key = { "idempotency-key": "after-503" };
    const refused = await post(service, body, key);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect((await post(service, ndjson([point("d", T0 + 3)]))).status).toBe(503);
    expect(await stored(service, "d")).toEqual([0]);

    disk.write = undefined;
    expect((await post(service, body, key)).status).toBe(200);
    expect((await post(service, body, key)).headers.get("idempotent-replayed")).toBe("true");
    expect(await stored(service, "d")).toEqual([0, 1, 2]);
    expect(await service.metrics.registry.metrics()).toMatch(/keyspread_wal_append_failures_total 2/);
    await service.close();
    // A restart replays nothing that was refused.
    const again = await start({ directory, durable: true });
    expect(await stored(again.service, "d")).toEqual([0, 1, 2]);
    await again.service.close();
  });
});

describe("fairness and bounded memory", () => {
  it("caps the body bytes held at once (503 + Retry-After beyond) while a read keeps answering", async () => {
    const MiB = 1024 * 1024;
    const { service } = await start({ maxBodyBytes: 4 * MiB, maxInflightBodyBytes: 8 * MiB });
    expect((await post(service, ndjson([point("probe", T0)]))).status).toBe(200);
    await service.pipeline.flush();
    const line = JSON.stringify(point("big", T0));
    const big = Buffer.from(
      Array.from({ length: Math.floor((4 * MiB - 1) / (line.length + 1)) }, () => line).join("\n"),
    );
    const ingests = Array.from({ length: 12 }, () => post(service, big));
    const probe = await fetch(`${service.url}/v1/devices/probe/latest?tenant=t`);
    expect(probe.status).toBe(200);
    expect(((await probe.json()) as { points: unknown[] }).points).toHaveLength(1);
    const statuses = (await Promise.all(ingests)).map((answer) => answer.status);
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 200 || status === 503)).toBe(true);
    expect(service.bodyBudget.peak).toBeLessThanOrEqual(8 * MiB);
    expect(service.bodyBudget.inUse).toBe(0);
    await service.close();
  });

  it("gives invented tenants one shared quota and one metrics label past --max-tenants", async () => {
    // A slow refill (1 point/s) so the test does not depend on how fast the requests go.
    const { service } = await start({ maxTenants: 5, quotas: { default: { rate: 1, burst: 1000 } } });
    const statuses: number[] = [];
    for (let request = 0; request < 10; request++) {
      const points = Array.from({ length: 500 }, (_, i) => point("d", T0 + i, `invented-${request}-${i}`));
      statuses.push((await post(service, ndjson(points))).status);
    }
    // 500 points of 500 new tenants each: the shared bucket takes two requests' worth, then refuses.
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(2);
    const exported = await service.metrics.registry.metrics();
    const tenants = new Set([...exported.matchAll(/tenant="([^"]+)"/g)].map((match) => match[1]));
    expect(tenants.size).toBeLessThanOrEqual(6);
    expect(tenants).toContain("(other)");
    await service.close();
  });
});

describe("invented tenants in a refused request", () => {
  it("take no tenant label: a later new tenant still gets its own", async () => {
    const { service } = await start({ maxTenants: 5, quotas: { default: { rate: 1, burst: 10 } } });
    const invented = Array.from({ length: 1_000 }, (_, i) => point("d", T0, `invented-${i}`));
    const greedy = Array.from({ length: 11 }, (_, i) => point("d", T0 + i, "greedy"));
    expect((await post(service, ndjson([...greedy, ...invented]))).status).toBe(413);
    expect((await post(service, ndjson([point("d", T0, "fresh")]))).status).toBe(200);
    const exported = await service.metrics.registry.metrics();
    expect(exported).toMatch(/keyspread_ingest_points_total\{tenant="fresh"\} 1/);
    expect(exported).not.toMatch(/invented-/);
    await service.close();
  });
});

/** A request written by hand on its own connection: `head` and as much body as given, then nothing. */
function rawRequest(service: IngestService, headers: Record<string, string>, body: Buffer = Buffer.alloc(0)) {
  const { hostname, port } = new URL(service.url);
  const socket: Socket = connect(Number(port), hostname);
  const head = Object.entries({ host: hostname, "content-type": "application/x-ndjson", ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  socket.write(`POST /v1/ingest HTTP/1.1\r\n${head}\r\n`);
  socket.write(body);
  let received = "";
  socket.on("data", (chunk) => {
    received += chunk;
  });
  socket.on("error", () => {});
  const closed = new Promise<string>((resolve) => socket.once("close", () => resolve(received)));
  return { socket, closed, received: () => received };
}

describe("slow and refused bodies", () => {
  const KiB = 1024;

  it("a tenant's stalled bodies spend its own share: another tenant is not refused", async () => {
    const directory = await mkdtemp(join(tmpdir(), "budget-"));
    const authFile = join(directory, "keys.json");
    const keys = { noisy: newApiKey("noisy", ["ingest"]), honest: newApiKey("honest", ["ingest"]) };
    await updateApiKeyFile(authFile, (file) => file.keys.push(keys.noisy.entry, keys.honest.entry));
    const { service } = await start({
      directory,
      authFile,
      maxBodyBytes: 64 * KiB,
      maxInflightBodyBytes: 256 * KiB,
    });
    // 40 chunked bodies of 8 KiB, then silence: 320 KiB asked, more than the whole budget.
    const chunk = Buffer.alloc(8 * KiB, " ");
    const stalled = Array.from({ length: 40 }, () =>
      rawRequest(
        service,
        { authorization: `Bearer ${keys.noisy.key}`, "transfer-encoding": "chunked" },
        Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]),
      ),
    );
    await vi.waitFor(() =>
      expect(stalled.filter((r) => r.received().startsWith("HTTP/1.1 503")).length).toBe(32),
    );
    expect(service.bodyBudget.inUse).toBe(64 * KiB);
    const honest = await post(service, ndjson([point("d", T0, "honest")]), {
      authorization: `Bearer ${keys.honest.key}`,
    });
    expect(honest.status).toBe(200);
    for (const request of stalled) request.socket.destroy();
    await service.close();
  });

  it("answers a body that stalls past the deadline with 408 and closes the connection", async () => {
    const { service } = await start({ bodyTimeoutMs: 300 });
    const line = Buffer.from(JSON.stringify(point("d", T0)));
    const slow = rawRequest(service, { "content-length": String(line.length + 10) }, line);
    const answer = await slow.closed;
    expect(answer).toMatch(/^HTTP\/1\.1 408 [\s\S]*connection: close/i);
    expect(service.bodyBudget.inUse).toBe(0);
    await service.close();
  });

  it("does not read a refused body to its end: answers (413, 415) and closes the connection", async () => {
    const { service } = await start({ maxBodyBytes: 64 * KiB });
    const GiB = String(1024 * 1024 * 1024);
    for (const [status, headers] of [
      [413, { "content-length": GiB }],
      [415, { "content-length": GiB, "content-type": "text/plain" }],
    ] as const) {
      const huge = rawRequest(service, headers, Buffer.alloc(16 * KiB, " "));
      expect(await huge.closed).toMatch(new RegExp(`^HTTP/1\\.1 ${status} [\\s\\S]*connection: close`, "i"));
    }
    await service.close();
  });
});

describe("one owner per log", () => {
  it("lets exactly one of two services started at once on one log directory run", async () => {
    const directory = await mkdtemp(join(tmpdir(), "race-"));
    const results = await Promise.allSettled([start({ directory }), start({ directory })]);
    const running = results.filter((result) => result.status === "fulfilled");
    expect(running).toHaveLength(1);
    const refused = results.find((result) => result.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(WalDirectoryInUse);
    await (running[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof start>>>).value.service.close();
  });
});

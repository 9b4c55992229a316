/**
 * Issue 19 as a hostile tenant would try it: credentials decide the tenant, reads stay inside it,
 * revocation is felt within a second, keys never leak, quotas follow the key; TLS works.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile } from "node:fs/promises";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryStore } from "../../store/memory/memory.js";
import { type IngestService, type IngestServiceOptions, startIngestService } from "../ingest-service.js";
import { updateApiKeyFile } from "./api-key-file.js";
import { type ApiKeyScope, newApiKey } from "./api-keys.js";

const T0 = 1_764_484_000_000;

async function addKey(path: string, tenant: string, scopes: ApiKeyScope[]) {
  const { key, entry } = newApiKey(tenant, scopes);
  await updateApiKeyFile(path, (file) => file.keys.push(entry));
  return { key, id: entry.id, sha256: entry.sha256 };
}

async function start(extra: Partial<IngestServiceOptions> = {}) {
  const directory = await mkdtemp(join(tmpdir(), "auth-"));
  const lines: string[] = [];
  const service = await startIngestService({
    store: new MemoryStore({ name: "auth" }),
    walDirectory: join(directory, "wal"),
    intervalMs: 50,
    latestCacheTtlMs: 0,
    accessLogPath: join(directory, "access.jsonl"),
    log: (line) => lines.push(line),
    ...extra,
  });
  return { service, directory, lines };
}

describe("keyspread serve --auth", () => {
  let service: IngestService;
  let directory: string;
  let lines: string[];
  let authFile: string;
  const keys: Record<string, { key: string; id: string; sha256: string }> = {};

  const call = async (path: string, key: string | undefined, init: RequestInit = {}) => {
    const res = await fetch(`${service.url}${path}`, {
      ...init,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(init.headers as Record<string, string>),
      },
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      text,
      body: text.startsWith("{") ? JSON.parse(text) : text,
    };
  };
  const ingest = (key: string | undefined, points: object[]) =>
    call("/v1/ingest", key, {
      method: "POST",
      headers: { "content-type": "application/x-ndjson" },
      body: points.map((p) => JSON.stringify(p)).join("\n"),
    });
  const readTimes = async (key: string, deviceId: string, query = "") => {
    await service.pipeline.settle();
    const answer = await call(`/v1/devices/${deviceId}/range?from=0&to=${T0 + 1e6}${query}`, key);
    return answer.status === 200
      ? (answer.body.points as { ts: number }[]).map((p) => p.ts - T0)
      : answer.status;
  };

  beforeAll(async () => {
    const keyDirectory = await mkdtemp(join(tmpdir(), "auth-keys-"));
    authFile = join(keyDirectory, "keys.json");
    keys.acme = await addKey(authFile, "acme", ["ingest", "read"]);
    keys.globex = await addKey(authFile, "globex", ["ingest", "read"]);
    keys.reader = await addKey(authFile, "acme", ["read"]);
    keys.admin = await addKey(authFile, "ops", ["admin"]);
    ({ service, directory, lines } = await start({
      authFile,
      quotas: { tenants: { acme: { rate: 1, burst: 100 } } },
    }));
  });
  afterAll(() => service.close());

  it("refuses requests without a valid key (401) and outside the key's scopes (403)", async () => {
    const missing = await call("/v1/devices/d/latest", undefined);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await call("/v1/devices/d/latest", "ks_0000000000000000_nope")).status).toBe(401);
    const altered = keys.acme!.key.slice(0, -1) + (keys.acme!.key.endsWith("A") ? "B" : "A");
    expect((await call("/v1/devices/d/latest", altered)).status).toBe(401);
    expect((await call("/nowhere", undefined)).status).toBe(401);
    expect((await ingest(keys.reader!.key, [{ deviceId: "d", ts: T0, metrics: { v: 1 } }])).status).toBe(403);
    expect((await call("/metrics", keys.acme!.key)).status).toBe(403);
    expect((await call("/metrics", keys.admin!.key)).status).toBe(200);
    expect((await call("/v1/alerts", keys.admin!.key)).status).toBe(200);
    expect((await call("/v1/devices/d/latest", keys.admin!.key)).status).toBe(403);
  });

  it("takes the tenant from the key and refuses a body naming another (403, by line)", async () => {
    const refused = await ingest(keys.acme!.key, [
      { deviceId: "imp", ts: T0, metrics: { v: 1 } },
      { tenant: "globex", deviceId: "imp", ts: T0 + 1, metrics: { v: 1 } },
    ]);
    expect(refused.status).toBe(403);
    expect(refused.body.problems).toEqual([
      { line: 2, field: "tenant", message: '"globex": these credentials are for tenant "acme" only' },
    ]);
    expect(await readTimes(keys.globex!.key, "imp")).toEqual([]);
    expect(await readTimes(keys.acme!.key, "imp")).toEqual([]);
  });

  it("keeps one device id of two tenants apart, and refuses reads across tenants", async () => {
    expect(
      (await ingest(keys.acme!.key, [{ deviceId: "shared", ts: T0 + 1, metrics: { v: 1 } }])).status,
    ).toBe(200);
    expect(
      (
        await ingest(keys.globex!.key, [
          { tenant: "globex", deviceId: "shared", ts: T0 + 2, metrics: { v: 2 } },
        ])
      ).status,
    ).toBe(200);
    expect(await readTimes(keys.acme!.key, "shared")).toEqual([1]);
    expect(await readTimes(keys.reader!.key, "shared")).toEqual([1]);
    expect(await readTimes(keys.globex!.key, "shared")).toEqual([2]);
    expect(await readTimes(keys.acme!.key, "shared", "&tenant=globex")).toBe(403);
    const latest = await call("/v1/devices/shared/latest", keys.globex!.key);
    expect(latest.body.points).toEqual([
      { tenant: "globex", deviceId: "shared", ts: T0 + 2, metrics: { v: 2 } },
    ]);
  });

  it("charges the quota to the key's tenant", async () => {
    const points = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ deviceId: "q", ts: T0 + 100 + i, metrics: { v: i } }));
    // acme has a burst of 100 points, refilled at 1 a second (so the test does not race the refill),
    // and spent 1 above: 98 fit, 50 more do not.
    expect((await ingest(keys.acme!.key, points(98))).status).toBe(200);
    const refused = await ingest(keys.acme!.key, points(50));
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: "over-quota", tenant: "acme", error: expect.any(String) });
    expect((await ingest(keys.globex!.key, points(500))).status).toBe(200);
    const metrics = (await call("/metrics", keys.admin!.key)).text;
    expect(metrics).toMatch(/keyspread_admission_rejections_total\{tenant="acme",status="429"\} 1/);
    expect(metrics).toMatch(/keyspread_ingest_points_total\{tenant="globex"\} 501/);
  });

  it("refuses a revoked key within a second, without a restart", async () => {
    const doomed = await addKey(authFile, "acme", ["read"]);
    await expect
      .poll(async () => (await call("/v1/devices/d/latest", doomed.key)).status, { timeout: 5000 })
      .toBe(200);
    await updateApiKeyFile(authFile, (file) => {
      file.keys.find((entry) => entry.id === doomed.id)!.revokedAt = new Date().toISOString();
    });
    // From when the revocation is on disk (the update takes a lock and a durable write first).
    const revokedAt = Date.now();
    for (;;) {
      if ((await call("/v1/devices/d/latest", doomed.key)).status === 401) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(Date.now() - revokedAt).toBeLessThan(1000);
  });

  it("never writes key material to logs, metrics or the access log", async () => {
    await service.pipeline.settle();
    const everything = [
      lines.join("\n"),
      (await call("/metrics", keys.admin!.key)).text,
      (await call("/v1/alerts", keys.admin!.key)).text,
      await readFile(join(directory, "access.jsonl"), "utf8"),
    ].join("\n");
    for (const { key, sha256 } of Object.values(keys)) {
      expect(everything).not.toContain(key.slice("ks_0123456789abcdef_".length));
      expect(everything).not.toContain(sha256);
    }
    expect(everything).not.toMatch(/Bearer|authorization/i);
  });
});

describe("keyspread serve without --auth", () => {
  it("refuses to listen beyond loopback unless told --insecure, and says so at start", async () => {
    await expect(start({ host: "0.0.0.0" })).rejects.toMatchObject({
      name: "ServeOptionError",
      field: "host",
      value: "0.0.0.0",
    });
    const { service, lines } = await start({ host: "0.0.0.0", insecure: true });
    expect(lines).toContainEqual(expect.stringMatching(/"event":"no-auth"/));
    await service.close();
  });
});

describe("keyspread serve over TLS", () => {
  it("serves HTTPS with the given certificate", async () => {
    const directory = await mkdtemp(join(tmpdir(), "tls-"));
    const [keyFile, certFile] = [join(directory, "key.pem"), join(directory, "cert.pem")];
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        keyFile,
        "-out",
        certFile,
        "-days",
        "1",
      ].concat(["-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1"]),
      { stdio: "ignore" },
    );
    const cert = await readFile(certFile);
    const { service } = await start({ tls: { cert, key: await readFile(keyFile) } });
    expect(service.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${service.url}/v1/ingest`,
        { method: "POST", ca: cert, headers: { "content-type": "application/json" } },
        (res) => {
          let body = "";
          res.on("data", (chunk) => {
            body += chunk;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.once("error", reject);
      req.end(JSON.stringify({ tenant: "t", deviceId: "d", ts: T0, metrics: { v: 1 } }));
    });
    expect(answer).toEqual({ status: 200, body: '{"accepted":1}' });
    await service.close();
  });
});

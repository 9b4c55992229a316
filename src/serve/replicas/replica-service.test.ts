/**
 * Two services in one process sharing one table as replicas: a request retried on the other
 * replica with its Idempotency-Key is answered as a replay and stored once, each tenant's quota is
 * halved, and a replica whose lease another process took answers readiness and ingest 503.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../store/memory/memory.js";
import { ndjson, point, T0 } from "../ingest/points/points.testsuite.js";
import { startIngestService } from "../ingest-service.js";
import { REPLICA_ROW_PREFIX } from "./replica-registry.js";

async function replicaOf(store: MemoryStore) {
  const directory = await mkdtemp(join(tmpdir(), "replica-service-"));
  return startIngestService({
    store,
    walDirectory: join(directory, "wal"),
    intervalMs: 100,
    quotas: { tenants: { t: { rate: 1000 } } },
    replicas: { heartbeatMs: 50, leaseMs: 5_000 },
    log: () => {},
  });
}

const ingest = (url: string, body: string, key: string) =>
  fetch(`${url}/v1/ingest`, {
    method: "POST",
    headers: { "content-type": "application/x-ndjson", "idempotency-key": key },
    body,
  });

describe("services sharing one table as replicas", () => {
  it("replays a retry on the other replica, halves the quota, and stops taking writes once its lease is taken", async () => {
    const store = new MemoryStore();
    const a = await replicaOf(store);
    const b = await replicaOf(store);
    try {
      expect(a.replicaId).not.toBe(b.replicaId);
      const body = ndjson([point("d", T0), point("d", T0 + 1)]);
      expect((await ingest(a.url, body, "k1")).status).toBe(200);
      const retry = await ingest(b.url, body, "k1");
      expect([retry.status, retry.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
      expect(await retry.json()).toEqual({ accepted: 2 });
      expect(b.pipeline.pendingPoints()).toBe(0);

      await expect.poll(() => a.liveReplicas()).toBe(2);
      await expect
        .poll(
          async () =>
            /keyspread_quota_share_points_per_second\{quota="t"\} (\S+)/.exec(
              await (await fetch(`${a.url}/metrics`)).text(),
            )?.[1],
        )
        .toBe("500");

      // Another process takes b's id over (its lease rewritten): b's next heartbeat finds out.
      const key = Buffer.concat([REPLICA_ROW_PREFIX, Buffer.from(b.replicaId)]);
      const lease = (await store.get(key))!.cells.get("lease")!;
      const thief = Buffer.from(
        JSON.stringify({ ...JSON.parse(lease.toString()), host: "elsewhere", pid: 1 }),
      );
      expect(
        await store.checkAndMutate(
          { type: "put", key, cells: new Map([["lease", thief]]) },
          { qualifier: "lease", equals: lease },
        ),
      ).toBe(true);
      await expect.poll(async () => (await fetch(`${b.url}/readyz`)).status).toBe(503);
      expect((await ingest(b.url, ndjson([point("d", T0 + 2)]), "k2")).status).toBe(503);
    } finally {
      await b.close();
      await a.close();
    }
  });
});

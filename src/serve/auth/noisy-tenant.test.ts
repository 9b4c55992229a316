/**
 * The fleet incident's 62 % customer: one tenant sending at 10× its quota cannot take the others' share, and
 * the monitor says so (tenant-over-quota alert, rejection counter). Memory store: the point is
 * admission, not storage.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../store/memory/memory.js";
import { startIngestService } from "../ingest-service.js";

const QUOTA = 2000;
const TICK_MS = 50;
const RUN_MS = 2000;

describe("per-tenant admission under a noisy tenant", () => {
  it("keeps the quiet tenants' success rate at 100 % while the noisy one sends 10× its quota", async () => {
    const directory = await mkdtemp(join(tmpdir(), "noisy-"));
    const alerts: string[] = [];
    const service = await startIngestService({
      store: new MemoryStore({ name: "noisy" }),
      walDirectory: join(directory, "wal"),
      intervalMs: 200,
      // Same rate for everyone. The quiet tenants' larger burst only absorbs requests that queue up
      // while a busy test machine stalls this process; it never lets them exceed the rate.
      quotas: {
        default: { rate: QUOTA, burst: 4 * QUOTA },
        tenants: { noisy: { rate: QUOTA, burst: QUOTA } },
      },
      monitorWindowMs: 250,
      log: (line) => alerts.push(line),
    });
    const tally = new Map<string, { sent: number; ok: number; refused: number; retryAfter: string[] }>();
    let n = 0;
    const send = async (tenant: string, points: number) => {
      const body = Array.from({ length: points }, () =>
        JSON.stringify({
          tenant,
          deviceId: `${tenant}-${n % 50}`,
          ts: 1_764_484_000_000 + n++,
          metrics: { v: 1 },
        }),
      ).join("\n");
      const res = await fetch(`${service.url}/v1/ingest`, {
        method: "POST",
        headers: { "content-type": "application/x-ndjson" },
        body,
      });
      await res.arrayBuffer();
      const entry = tally.get(tenant) ?? { sent: 0, ok: 0, refused: 0, retryAfter: [] };
      entry.sent++;
      if (res.status === 200) entry.ok++;
      if (res.status === 429) {
        entry.refused++;
        entry.retryAfter.push(res.headers.get("retry-after") ?? "");
      }
      tally.set(tenant, entry);
    };
    // Quiet tenants at half their quota, the noisy one at ten times: points per tick of 50 ms.
    const perTick = (rate: number) => (rate * TICK_MS) / 1000;
    const ticks = RUN_MS / TICK_MS;
    const inFlight: Promise<void>[] = [];
    const started = performance.now();
    for (let tick = 0; tick < ticks; tick++) {
      inFlight.push(send("quiet-a", perTick(QUOTA / 2)), send("quiet-b", perTick(QUOTA / 2)));
      for (let i = 0; i < 10; i++) inFlight.push(send("noisy", perTick(QUOTA)));
      await new Promise((resolve) => setTimeout(resolve, TICK_MS));
    }
    await Promise.all(inFlight);
    const elapsedS = (performance.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 300));

    for (const quiet of ["quiet-a", "quiet-b"])
      expect(tally.get(quiet)).toMatchObject({ sent: ticks, ok: ticks });
    const noisy = tally.get("noisy")!;
    // It gets its quota (plus the burst) over the time the run really took, not the traffic it sent.
    const noisyPointsPerRequest = perTick(QUOTA);
    expect(noisy.ok * noisyPointsPerRequest).toBeLessThanOrEqual(
      QUOTA + QUOTA * elapsedS + noisyPointsPerRequest,
    );
    // Everything beyond that is refused with 429 (none lost to other errors). How much that is
    // depends on how long a busy machine stretched the run, so no share is asserted.
    expect(noisy.refused).toBe(noisy.sent - noisy.ok);
    expect(noisy.refused).toBeGreaterThan(0);
    expect(noisy.retryAfter.every((value) => Number(value) >= 1)).toBe(true);
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/keyspread_admission_rejections_total\{tenant="noisy",status="429"\} [1-9]/);
    expect(metrics).not.toMatch(/keyspread_admission_rejections_total\{tenant="quiet/);
    expect(
      alerts.some((line) => /"alert":"tenant-over-quota","subject":"noisy","state":"firing"/.test(line)),
    ).toBe(true);
    const active = (await (await fetch(`${service.url}/v1/alerts`)).json()) as {
      alerts: { subject: string }[];
    };
    expect(active.alerts.map((alert) => alert.subject)).not.toContain("quiet-a");
    await service.close();
  });
});

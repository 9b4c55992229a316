import { copyFile, mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../store/memory.js";
import { SaltedTable } from "../table/salted-table.js";
import { DeviceReads } from "./device-reads.js";
import { HotspotMonitor } from "./hotspot-monitor.js";
import { IngestPipeline } from "./ingest-pipeline.js";
import { metricsSchema } from "./metrics-schema.js";
import { ServiceMetrics } from "./service-metrics.js";

const T0 = 1_764_484_000_000;
const segmentsIn = async (wal: string) => (await readdir(wal)).filter((name) => name.endsWith(".wal"));

async function openPipeline(table: SaltedTable, walDirectory: string) {
  const metrics = new ServiceMetrics();
  return IngestPipeline.open({
    table,
    walDirectory,
    intervalMs: 60_000,
    metrics,
    monitor: new HotspotMonitor({ buckets: table.schema.bucketCount }, metrics, () => {}),
    log: () => {},
  });
}

describe("IngestPipeline recovery", () => {
  it("replays a segment into the same rows, so replaying an already written segment adds nothing", async () => {
    const directory = await mkdtemp(join(tmpdir(), "pipeline-"));
    const wal = join(directory, "wal");
    const table = await SaltedTable.open(new MemoryStore({ name: "p" }), metricsSchema(4), { create: true });
    const points = [0, 1, 2].map((i) => ({ tenant: "t", deviceId: "d", ts: T0 + i, metrics: { v: i } }));
    const body = Buffer.from(points.map((p) => JSON.stringify(p)).join("\n"));

    const first = await openPipeline(table, wal);
    await first.accept(points, "ndjson", body);
    // Keep a copy of the segment as a crash right after the store write would have left it.
    const [segment] = await segmentsIn(wal);
    await copyFile(join(wal, segment!), join(directory, "saved"));
    await first.close();
    await copyFile(join(directory, "saved"), join(wal, segment!));

    const second = await openPipeline(table, wal);
    expect(second.totals.pointsWritten).toBe(3);
    await second.close();
    const reads = new DeviceReads(table, { intervalMs: 60_000, cacheTtlMs: 0 });
    expect((await reads.latest("d", 10)).map((p) => p.ts)).toEqual([T0 + 2, T0 + 1, T0]);
    expect(await segmentsIn(wal)).toHaveLength(1);
  });
});

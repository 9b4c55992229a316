import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../store/memory.js";
import { SaltedTable } from "../../table/salted-table.js";
import { DeviceReads } from "../http/device-reads.js";
import { deviceKeyedMetricsSchema, metricsSchema } from "../ingest/metrics-schema.js";
import { encodeMetricPoints, METRIC_POINTS_QUALIFIER } from "../ingest/point-codec.js";
import { startIngestService } from "../ingest-service.js";
import { migrateToTenantKeys } from "./tenant-namespace-migration.js";

const T0 = 1_764_484_000_000;

describe("migrateToTenantKeys", () => {
  it("splits rows that held several tenants' points into one row per tenant under today's key", async () => {
    const source = new MemoryStore({ name: "old" });
    const old = await SaltedTable.open(source, deviceKeyedMetricsSchema(4, 1000), { create: true });
    const points = [
      { tenant: "acme", deviceId: "shared", ts: T0 + 1, metrics: { v: 1 } },
      { tenant: "globex", deviceId: "shared", ts: T0 + 2, metrics: { v: 2 } },
      { tenant: "acme", deviceId: "shared", ts: T0 + 3, metrics: { v: 3 } },
    ];
    await old.putMany([
      {
        values: { deviceId: "shared", interval: T0, segment: 7 },
        cells: new Map([[METRIC_POINTS_QUALIFIER, encodeMetricPoints(points, T0)]]),
      },
      {
        values: { deviceId: "solo", interval: T0 + 1000, segment: 8 },
        cells: new Map([
          [
            METRIC_POINTS_QUALIFIER,
            encodeMetricPoints([{ ...points[0]!, deviceId: "solo", ts: T0 + 1500 }], T0 + 1000),
          ],
        ]),
      },
    ]);
    const target = new MemoryStore({ name: "new" });
    const run = () => migrateToTenantKeys({ source, target, buckets: 4, intervalMs: 1000 });
    expect(await run()).toEqual({ rowsRead: 2, rowsWritten: 3, points: 4 });
    // Run again (an interrupted copy): same keys, nothing doubles.
    await run();
    const reads = new DeviceReads(await SaltedTable.open(target, metricsSchema(4, 1000)), {
      intervalMs: 1000,
      cacheTtlMs: 0,
    });
    expect((await reads.latest("acme", "shared", 10)).map((p) => p.ts - T0)).toEqual([3, 1]);
    expect((await reads.latest("globex", "shared", 10)).map((p) => p.ts - T0)).toEqual([2]);
    expect((await reads.latest("acme", "solo", 10)).map((p) => p.ts - T0)).toEqual([1500]);
    expect(target.size).toBe(4); // three rows and the schema row
  });

  it("refuses a source that is not a device-keyed metrics table", async () => {
    const source = new MemoryStore({ name: "other" });
    await SaltedTable.open(source, deviceKeyedMetricsSchema(8, 1000), { create: true });
    await expect(
      migrateToTenantKeys({ source, target: new MemoryStore({ name: "t" }), buckets: 4, intervalMs: 1000 }),
    ).rejects.toThrow(/different key schema/);
  });

  it("is what a service on a device-keyed table is told to run", async () => {
    const store = new MemoryStore({ name: "old" });
    await SaltedTable.open(store, deviceKeyedMetricsSchema(16, 2000), { create: true });
    const directory = await mkdtemp(join(tmpdir(), "old-table-"));
    await expect(
      startIngestService({ store, walDirectory: join(directory, "wal"), log: () => {} }),
    ).rejects.toThrow(/written by an older keyspread serve.*`keyspread serve migrate`/);
  });
});

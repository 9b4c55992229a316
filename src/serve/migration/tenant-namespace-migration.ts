/**
 * Copies a metrics table written before device ids were namespaced by tenant — key
 * `salt#deviceId#reverse(interval)#segment`, each point naming its tenant in the cell, so one row
 * could hold several tenants' points — into a table with today's key
 * (`salt#tenant#deviceId#…`): such a row becomes one row per tenant. Bigtable keys are immutable,
 * so the copy goes to a new table. Every copied row lands on a key fixed by its source row, so an
 * interrupted copy is simply run again. (`keyspread migrate backfill` re-keys rows one to one with
 * the same fields; this migration splits rows and adds a field, so it is the service's own.)
 */
import { dataPages } from "../../migrate/data-rows.js";
import type { Store, StoreMutation } from "../../store/store.js";
import { SaltedTable } from "../../table/salted-table.js";
import { guardRecordedSchema } from "../../table/schema-guard.js";
import { deviceKeyedMetricsSchema, metricsSchema } from "../ingest/metrics-schema.js";
import type { MetricPoint } from "../ingest/point.js";
import { decodeMetricPoints, encodeMetricPoints, METRIC_POINTS_QUALIFIER } from "../ingest/point-codec.js";

export interface TenantMigrationOptions {
  source: Store;
  target: Store;
  /** The source table's salt buckets and aggregation interval (they carry over). */
  buckets: number;
  intervalMs: number;
  /** Rows read per page (default 1000). */
  pageSize?: number;
  onProgress?: (progress: TenantMigrationProgress) => void;
}

export interface TenantMigrationProgress {
  rowsRead: number;
  rowsWritten: number;
  points: number;
}

export async function migrateToTenantKeys(options: TenantMigrationOptions): Promise<TenantMigrationProgress> {
  const { source, target, buckets, intervalMs } = options;
  if (source.name === target.name) throw new Error(`source and target are the same table (${source.name})`);
  const from = deviceKeyedMetricsSchema(buckets, intervalMs);
  await guardRecordedSchema(source, from);
  const to = (await SaltedTable.open(target, metricsSchema(buckets, intervalMs), { create: true })).schema;
  const progress: TenantMigrationProgress = { rowsRead: 0, rowsWritten: 0, points: 0 };
  for await (const page of dataPages(source, options.pageSize ?? 1000)) {
    const mutations: StoreMutation[] = [];
    for (const row of page) {
      const { deviceId, interval, segment } = from.decode(row.key).values as {
        deviceId: string;
        interval: number;
        segment: number;
      };
      const cell = row.cells.get(METRIC_POINTS_QUALIFIER);
      if (cell === undefined)
        throw new Error(`source row ${row.key.toString("hex")} has no "${METRIC_POINTS_QUALIFIER}" cell`);
      const byTenant = new Map<string, MetricPoint[]>();
      for (const point of decodeMetricPoints(cell, deviceId, interval)) {
        const points = byTenant.get(point.tenant) ?? [];
        points.push(point);
        byTenant.set(point.tenant, points);
        progress.points++;
      }
      for (const [tenant, points] of byTenant) {
        mutations.push({
          type: "put",
          key: to.encode({ tenant, deviceId, interval, segment }),
          cells: new Map([[METRIC_POINTS_QUALIFIER, encodeMetricPoints(points, interval)]]),
        });
      }
    }
    const { failed } = await target.write(mutations, { durable: true });
    if (failed.length > 0) {
      throw new Error(
        `${target.name}: ${failed.length} rows were not written (run the migration again to retry); first: ${failed[0]!.reason}`,
      );
    }
    progress.rowsRead += page.length;
    progress.rowsWritten += mutations.length;
    options.onProgress?.({ ...progress });
  }
  return progress;
}

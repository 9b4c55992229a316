/**
 * Reads of one device's points, expanded from its aggregated rows: seed 003's hot latest-N (one
 * bucket, newest rows first, with a few-seconds cache) and the dashboard's time range.
 */
import { LRUCache } from "lru-cache";
import { keySuccessor } from "../keys/bytes.js";
import type { SaltedTable, TableRow } from "../table/salted-table.js";
import { clipToData } from "../table/schema-guard.js";
import type { AccessEntry, AccessLog } from "./access-log.js";
import type { MetricPoint } from "./point.js";
import { decodePoints, POINTS_QUALIFIER } from "./point-codec.js";

/** Rows per store read of a latest-N: a row holds one interval of points (about 20 under load). */
const LATEST_PAGE_ROWS = 16;

export interface DeviceReadsOptions {
  intervalMs: number;
  /** How long a latest-N answer is served from memory (default 2000 ms; 0 turns the cache off). */
  cacheTtlMs?: number;
  /** The most points a range read returns (default 100,000); more is flagged `truncated`. */
  maxRangePoints?: number;
  accessLog?: AccessLog;
}

export interface RangeResult {
  points: MetricPoint[];
  truncated: boolean;
}

export class DeviceReads {
  private readonly cache: LRUCache<string, MetricPoint[]> | undefined;

  constructor(
    private readonly table: SaltedTable,
    private readonly options: DeviceReadsOptions,
  ) {
    const ttl = options.cacheTtlMs ?? 2000;
    this.cache = ttl > 0 ? new LRUCache({ max: 10_000, ttl }) : undefined;
  }

  /**
   * The newest `n` points, newest first. Rows come newest interval first; rows of one interval can
   * interleave in time (one per flush), so reading stops only after the interval that completed `n`.
   */
  async latest(deviceId: string, n: number): Promise<MetricPoint[]> {
    const cacheKey = `${n}\n${deviceId}`;
    const cached = this.cache?.get(cacheKey);
    if (cached) return cached;
    const points: MetricPoint[] = [];
    const read: TableRow[] = [];
    let lastInterval: number | undefined;
    for await (const row of this.rowsNewestFirst(deviceId)) {
      const interval = row.values.interval as number;
      if (points.length >= n && interval !== lastInterval) break;
      read.push(row);
      points.push(...pointsOf(row, deviceId));
      lastInterval = interval;
    }
    this.logReads(read, "read");
    const newest = points.sort((a, b) => b.ts - a.ts).slice(0, n);
    this.cache?.set(cacheKey, newest);
    return newest;
  }

  /**
   * The device's rows newest first, read straight from its one bucket range in pages of
   * LATEST_PAGE_ROWS. The salt hashes the device id only, so there is nothing to merge; and a
   * latest-100 needs about five rows, where a table scan fetches 256-row pages (on Bigtable, a
   * device with 30 days of data would send all 256 for every read).
   */
  private async *rowsNewestFirst(deviceId: string): AsyncGenerator<TableRow> {
    const [range] = this.table.explain({ eq: { deviceId } }).ranges;
    const data = clipToData(range!);
    if (data === undefined) return;
    const { end } = data;
    let start = data.start;
    for (;;) {
      let count = 0;
      let last = start;
      for await (const row of this.table.store.read([{ start, end }], { limit: LATEST_PAGE_ROWS })) {
        count++;
        last = row.key;
        yield this.table.toTableRow(row);
      }
      if (count < LATEST_PAGE_ROWS) return;
      start = keySuccessor(last);
    }
  }

  /**
   * Points with `fromMs ≤ ts ≤ toMs`, newest first (key order). Past `maxRangePoints` the newest
   * ones are returned, flagged `truncated`: continue with `to` = the oldest returned ts − 1.
   */
  async range(deviceId: string, fromMs: number, toMs: number): Promise<RangeResult> {
    const max = this.options.maxRangePoints ?? 100_000;
    const firstInterval = fromMs - (fromMs % this.options.intervalMs);
    const points: MetricPoint[] = [];
    const read: TableRow[] = [];
    let lastInterval: number | undefined;
    for await (const row of this.table.scan({
      eq: { deviceId },
      range: { field: "interval", gte: firstInterval, lte: toMs },
    })) {
      const interval = row.values.interval as number;
      // Rows of one interval interleave in time: finish the interval that went past the cap.
      if (points.length > max && interval !== lastInterval) break;
      read.push(row);
      for (const point of pointsOf(row, deviceId)) {
        if (point.ts >= fromMs && point.ts <= toMs) points.push(point);
      }
      lastInterval = interval;
    }
    this.logReads(read, "scan");
    points.sort((a, b) => b.ts - a.ts);
    const truncated = points.length > max;
    return { points: truncated ? points.slice(0, max) : points, truncated };
  }

  private logReads(rows: readonly TableRow[], op: "read" | "scan"): void {
    const log = this.options.accessLog;
    if (!log) return;
    const entries: AccessEntry[] = rows.map((row) => ({
      key: row.key,
      op,
      bytes: row.cells.get(POINTS_QUALIFIER)?.length ?? 0,
    }));
    log.record(Date.now(), entries);
  }
}

function pointsOf(row: TableRow, deviceId: string): MetricPoint[] {
  const cell = row.cells.get(POINTS_QUALIFIER);
  if (cell === undefined)
    throw new Error(`row ${row.key.toString("latin1")} has no "${POINTS_QUALIFIER}" cell`);
  return decodePoints(cell, deviceId, row.values.interval as number);
}

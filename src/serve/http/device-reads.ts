/**
 * Reads of one device's points, expanded from its aggregated rows: the fleet incident's hot latest-N (one
 * bucket, newest rows first, with a few-seconds cache) and the dashboard's time range, paged by an
 * exact cursor. A device is always read within its tenant: the tenant is part of the row key.
 * During a live migration the table read follows the phase: it is asked for at every read.
 */
import { LRUCache } from "lru-cache";
import { keySuccessor } from "../../keys/bytes.js";
import { emitTableWarning, RowDecoder } from "../../table/row-decoder.js";
import type { SaltedTable, TableRow } from "../../table/salted-table.js";
import { clipToData } from "../../table/schema-guard.js";
import type { MetricPoint } from "../ingest/points/point.js";
import { decodeMetricPoints, METRIC_POINTS_QUALIFIER } from "../ingest/points/point-codec.js";
import type { AccessEntry, RecentAccesses } from "../observe/recent-accesses.js";
import { comesAfter, encodeRangeCursor, type RangeCursor } from "./range-cursor.js";

/** Rows per store read of a latest-N: a row holds one interval of points (about 20 under load). */
const LATEST_PAGE_ROWS = 16;

export interface DeviceReadsOptions {
  intervalMs: number;
  /** How long a latest-N answer is served from memory (absent or 0: no cache). */
  cacheTtlMs?: number;
  accessLog?: RecentAccesses;
}

export const MAX_RANGE_LIMIT = 100_000;

export interface RangeResult {
  points: MetricPoint[];
  truncated: boolean;
  /** Continues after the last point returned (ties included); present when truncated. */
  next?: string;
}

export interface RangePage {
  /** Points per page, 1 to MAX_RANGE_LIMIT (default MAX_RANGE_LIMIT). */
  limit?: number;
  /** Where the previous page ended. */
  cursor?: RangeCursor;
}

/** A point and its place in the device's total order: newest first, then by log segment and position. */
interface Placed {
  point: MetricPoint;
  segment: number;
  index: number;
}

export class DeviceReads {
  private readonly cache: LRUCache<string, MetricPoint[]> | undefined;
  private readonly tableNow: () => SaltedTable;

  /** `table`: the table read, or a function naming it at each read (a migration moves reads). */
  constructor(
    table: SaltedTable | (() => SaltedTable),
    private readonly options: DeviceReadsOptions,
  ) {
    this.tableNow = typeof table === "function" ? table : () => table;
    const ttl = options.cacheTtlMs ?? 0;
    this.cache = ttl > 0 ? new LRUCache({ max: 10_000, ttl }) : undefined;
  }

  private get table(): SaltedTable {
    return this.tableNow();
  }

  /**
   * The newest `n` points, newest first. Rows come newest interval first; rows of one interval can
   * interleave in time (one per flush), so reading stops only after the interval that completed `n`.
   */
  async latest(tenant: string, deviceId: string, n: number): Promise<MetricPoint[]> {
    const table = this.table;
    const cacheKey = `${table.store.name}\n${n}\n${tenant}\n${deviceId}`;
    const cached = this.cache?.get(cacheKey);
    if (cached) return cached;
    const points: MetricPoint[] = [];
    const read: TableRow[] = [];
    let lastInterval: number | undefined;
    for await (const row of this.rowsNewestFirst(table, tenant, deviceId)) {
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
  private async *rowsNewestFirst(
    table: SaltedTable,
    tenant: string,
    deviceId: string,
  ): AsyncGenerator<TableRow> {
    const [range] = table.explain({ eq: { tenant, deviceId } }).ranges;
    // No range (a key the schema cannot hold) or none inside the data: the device has no rows.
    const data = range && clipToData(range);
    if (data === undefined) return;
    const { end } = data;
    const appProfile = table.appProfileFor("latest");
    // A row another program wrote into the device's range is skipped and warned about, as table reads do.
    const decoder = new RowDecoder(table.schema, table.store.name, false);
    let start = data.start;
    try {
      for (;;) {
        let count = 0;
        let last = start;
        const options = { limit: LATEST_PAGE_ROWS, ...(appProfile === undefined ? {} : { appProfile }) };
        for await (const row of table.store.read([{ start, end }], options)) {
          count++;
          last = row.key;
          const decoded = decoder.decode(row);
          if (decoded) yield decoded;
        }
        if (count < LATEST_PAGE_ROWS) return;
        start = keySuccessor(last);
      }
    } finally {
      const warning = decoder.warning();
      if (warning) emitTableWarning(warning);
    }
  }

  /**
   * Points with `fromMs ≤ ts ≤ toMs`, newest first, at most `limit`: past it the result is
   * `truncated` and `next` continues exactly after the last point returned — points that share a
   * timestamp are ordered by the log segment and position they came in, so none is skipped or
   * repeated across pages.
   */
  async range(
    tenant: string,
    deviceId: string,
    fromMs: number,
    toMs: number,
    page: RangePage = {},
  ): Promise<RangeResult> {
    const limit = page.limit ?? MAX_RANGE_LIMIT;
    const { cursor } = page;
    const upper = cursor === undefined ? toMs : Math.min(toMs, cursor.ts);
    const firstInterval = fromMs - (fromMs % this.options.intervalMs);
    const placed: Placed[] = [];
    const read: TableRow[] = [];
    let lastInterval: number | undefined;
    for await (const row of this.table.scan({
      eq: { tenant, deviceId },
      range: { field: "interval", gte: firstInterval, lte: upper },
    })) {
      const interval = row.values.interval as number;
      // Rows of one interval interleave in time: finish the interval that went past the limit.
      if (placed.length > limit && interval !== lastInterval) break;
      read.push(row);
      const segment = row.values.segment as number;
      pointsOf(row, deviceId).forEach((point, index) => {
        if (point.ts < fromMs || point.ts > upper) return;
        if (cursor === undefined || comesAfter({ ts: point.ts, segment, index }, cursor)) {
          placed.push({ point, segment, index });
        }
      });
      lastInterval = interval;
    }
    this.logReads(read, "scan");
    placed.sort((a, b) => b.point.ts - a.point.ts || a.segment - b.segment || a.index - b.index);
    if (placed.length <= limit) return { points: placed.map((entry) => entry.point), truncated: false };
    const kept = placed.slice(0, limit);
    const last = kept.at(-1);
    if (last === undefined) throw new RangeError(`range limit ${limit}: expected a whole number ≥ 1`);
    return {
      points: kept.map((entry) => entry.point),
      truncated: true,
      next: encodeRangeCursor({ ts: last.point.ts, segment: last.segment, index: last.index }),
    };
  }

  private logReads(rows: readonly TableRow[], op: "read" | "scan"): void {
    const log = this.options.accessLog;
    if (!log) return;
    const entries: AccessEntry[] = rows.map((row) => ({
      key: row.key,
      op,
      bytes: row.cells.get(METRIC_POINTS_QUALIFIER)?.length ?? 0,
    }));
    log.record(Date.now(), entries);
  }
}

function pointsOf(row: TableRow, deviceId: string): MetricPoint[] {
  const cell = row.cells.get(METRIC_POINTS_QUALIFIER);
  if (cell === undefined)
    throw new Error(`row ${row.key.toString("latin1")} has no "${METRIC_POINTS_QUALIFIER}" cell`);
  return decodeMetricPoints(cell, deviceId, row.values.interval as number);
}

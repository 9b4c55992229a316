/**
 * Writes aggregated rows to the store: a segment's rows in chunks (each chunk's keys encoded a
 * quarter at a time, in CPU turns of their own, so reads go between), one durable store call per
 * table per chunk. A call the store throws on (it refused the batch as a whole) is split in halves
 * until the rows it refuses are alone. Writes to the primary table feed the metrics, the hotspot
 * monitor and the recent accesses.
 */
import type { StoreMutation } from "../../store/store.js";
import type { SaltedTable } from "../../table/salted-table.js";
import type { HotspotMonitor } from "../observe/hotspot-monitor.js";
import type { AccessEntry, RecentAccesses } from "../observe/recent-accesses.js";
import type { ServiceMetrics } from "../observe/service-metrics.js";
import type { CpuTurns } from "./cpu-turns.js";
import type { AggregatedRow } from "./points/interval-buffer.js";

/** One row on its way to one table. */
export interface PendingRow {
  row: AggregatedRow;
  table: SaltedTable;
  mutation: StoreMutation;
  attempts: number;
  reason: string;
  /** Successful store writes seen when the row first failed: more since means the store is up. */
  successesAtFirstFailure: number;
}

export interface RowWriterOptions {
  metrics: ServiceMetrics;
  monitor: HotspotMonitor;
  accessLog?: RecentAccesses;
  turns?: CpuTurns;
  /** The tables written now; the first is the primary. */
  writeTables: () => readonly SaltedTable[];
}

/** Rows written per store call during a flush (each call is one synced write)... */
const FLUSH_CHUNK_ROWS = 2_000;
/** ...encoded a quarter at a time, each quarter in a CPU turn of its own. */
const ENCODE_TURN_ROWS = 500;

export class RowWriter {
  /** Store write calls that took at least one row, per table. */
  private readonly writeSuccesses = new Map<SaltedTable, number>();
  /** Store write calls, rows and points written to the primary table since start (the bench's points per write). */
  readonly totals = { storeWrites: 0, rowsWritten: 0, pointsWritten: 0 };

  constructor(private readonly options: RowWriterOptions) {}

  /** Store write calls to `table` that took at least one row. */
  successes(table: SaltedTable): number {
    return this.writeSuccesses.get(table) ?? 0;
  }

  /**
   * Writes the rows to every table in chunks; returns the rows that failed. A row whose key cannot
   * be encoded for a table goes to `unencodable` instead.
   */
  async writeAll(
    rows: Iterator<AggregatedRow>,
    tables: readonly SaltedTable[],
    unencodable: (row: AggregatedRow, table: SaltedTable, reason: string) => void,
  ): Promise<PendingRow[]> {
    const { turns } = this.options;
    const failed: PendingRow[] = [];
    for (;;) {
      const chunk: AggregatedRow[] = [];
      let more = true;
      while (more && chunk.length < FLUSH_CHUNK_ROWS) {
        await turns?.take();
        for (let turn = 0; turn < ENCODE_TURN_ROWS; turn++) {
          const next = rows.next();
          if (next.done) {
            more = false;
            break;
          }
          chunk.push(next.value);
        }
      }
      await turns?.take();
      failed.push(...(await this.writeChunk(chunk, tables, unencodable)));
      if (chunk.length < FLUSH_CHUNK_ROWS) return failed;
    }
  }

  /** Writes each table's rows at once; returns those that failed. */
  async retry(rows: readonly PendingRow[]): Promise<PendingRow[]> {
    const perTable = new Map<SaltedTable, PendingRow[]>();
    for (const row of rows) {
      const list = perTable.get(row.table);
      if (list) list.push(row);
      else perTable.set(row.table, [row]);
    }
    return (await Promise.all([...perTable.values()].map((pending) => this.attempt(pending)))).flat();
  }

  /** Encodes the rows' keys for each table and writes them once, the tables at once; returns the failed ones. */
  private async writeChunk(
    rows: readonly AggregatedRow[],
    tables: readonly SaltedTable[],
    unencodable: (row: AggregatedRow, table: SaltedTable, reason: string) => void,
  ): Promise<PendingRow[]> {
    const perTable = tables.map((table) => {
      const pending: PendingRow[] = [];
      for (const row of rows) {
        try {
          const key = table.schema.encode(row.values);
          pending.push({
            row,
            table,
            mutation: { type: "put", key, cells: row.cells },
            attempts: 0,
            reason: "",
            successesAtFirstFailure: 0,
          });
        } catch (error) {
          unencodable(row, table, `row key: ${(error as Error).message}`);
        }
      }
      return pending;
    });
    return (await Promise.all(perTable.map((pending) => this.attempt(pending)))).flat();
  }

  /** One durable store write of rows bound for one table; returns those that failed. */
  private async attempt(rows: PendingRow[]): Promise<PendingRow[]> {
    if (rows.length === 0) return [];
    const { metrics } = this.options;
    const table = rows[0]!.table;
    const started = performance.now();
    let failures: Map<number, string>;
    try {
      // The table's write profile (serve --write-app-profile), as SaltedTable's own writes use it.
      const appProfile = table.appProfileFor("write");
      const { failed } = await table.store.write(
        rows.map((pending) => pending.mutation),
        { durable: true, ...(appProfile === undefined ? {} : { appProfile }) },
      );
      failures = new Map(failed.map((failure) => [failure.index, failure.reason]));
    } catch (error) {
      if (rows.length > 1) {
        const half = rows.length >> 1;
        return [...(await this.attempt(rows.slice(0, half))), ...(await this.attempt(rows.slice(half)))];
      }
      failures = new Map([[0, `the store refused the write: ${(error as Error).message}`]]);
    }
    const primary = table === this.options.writeTables()[0];
    if (primary) {
      metrics.storeWrites.inc();
      this.totals.storeWrites++;
    }
    const successes = this.successes(table);
    const written: PendingRow[] = [];
    const failed: PendingRow[] = [];
    rows.forEach((pending, index) => {
      const reason = failures.get(index);
      if (reason === undefined) {
        written.push(pending);
        return;
      }
      if (pending.attempts === 0) pending.successesAtFirstFailure = successes;
      pending.attempts++;
      pending.reason = reason;
      failed.push(pending);
    });
    if (written.length > 0) {
      this.writeSuccesses.set(table, successes + 1);
      if (primary) this.recordWritten(table, written, performance.now() - started);
    }
    return failed;
  }

  private recordWritten(table: SaltedTable, rows: readonly PendingRow[], writeMs: number): void {
    const { metrics, monitor, accessLog } = this.options;
    metrics.writeLatency.observe(writeMs / 1000);
    monitor.useBuckets(table.schema.bucketCount);
    const entries: AccessEntry[] = new Array(rows.length);
    rows.forEach(({ row, mutation }, index) => {
      const bucket = table.schema.bucketOf(row.values);
      const points = row.points;
      metrics.rowsWritten.inc({ bucket: String(bucket) });
      metrics.pointsWritten.inc({ bucket: String(bucket) }, points);
      monitor.observeBucket(bucket, points);
      this.totals.pointsWritten += points;
      const bytes = row.pointsCell.length;
      entries[index] = { key: mutation.key, op: "write", bytes, latencyMs: Math.round(writeMs) };
    });
    accessLog?.record(Date.now(), entries);
    this.totals.rowsWritten += rows.length;
  }
}

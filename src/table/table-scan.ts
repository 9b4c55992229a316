/**
 * One read of a salted table: the bucket ranges of its plan read in parallel, each bucket's first
 * read sized from the limit, merged back into logical key order (and a sharded entity's rows into
 * one), with the deadline, the partial-result policy and the report of what the read cost.
 */
import { setMaxListeners } from "node:events";
import pLimit, { type LimitFunction } from "p-limit";
import type { AccessLogSink } from "../access-log/sink.js";
import type { FieldValue, FieldValues, KeySchema, PlannedRange, QueryPlan } from "../keys/types.js";
import type { KeyRange, Store, StoreRow } from "../store/store.js";
import { BucketReadError, BucketReader, type RetryPolicy } from "./bucket-reader.js";
import { bucketShare } from "./bucket-share.js";
import { bySortKey, mergeSortedPages, type PageSource, type SortableRow } from "./merge.js";
import { OneCallRead } from "./one-call-read.js";
import {
  emitTableWarning,
  RowDecoder,
  type TableRow,
  type TableWarning,
  type UndecodableRow,
} from "./row-decoder.js";
import { clipToData } from "./schema-guard.js";
import { type ShardCellMerge, ShardRowMerger, sameCells } from "./write-shards.js";

/** Field values decoded from keys: a typed schema's, else any field's. */
export type Decoded = Record<string, FieldValue>;

export interface TableReadOptions {
  signal?: AbortSignal;
  /** Fail the read if it takes longer than this. */
  deadlineMs?: number;
  /** Return what the healthy buckets gave when a bucket fails for good, flagged in the report. */
  allowPartial?: boolean;
  /** Overrides the table's `strict` for this read. */
  strict?: boolean;
  /** This read's app profile. */
  appProfile?: string;
}

export interface TableReadReport {
  plan: QueryPlan;
  /** Rows the store returned across all bucket streams. */
  rowsScanned: number;
  rowsReturned: number;
  /** Rows scanned per row returned (1 is ideal); set when the read ends. */
  readAmplification: number;
  /**
   * Rounds of store reads: the most reads one bucket made (retries included); set when the read
   * ends. A limit-bound read takes one in the common case (see `bucketShare`).
   */
  rounds: number;
  retries: number;
  /** True only with `allowPartial`, when some bucket failed: the rows are then incomplete. */
  partial: boolean;
  failedBuckets: { bucket: number; error: string }[];
  /** Rows in the read's ranges the schema could not decode, skipped (only without `strict`). */
  rowsUndecodable: number;
  /** The first of them (key in hex, reason). */
  undecodable: UndecodableRow[];
}

/**
 * Why a read's fetches still in flight stop once it is over (no caller sees it): made once, where
 * abort() without a reason builds a DOMException and its stack trace on every read.
 */
const READ_OVER = new Error("the read is over");

/**
 * Rows a bounded one-call read holds for buckets the merge cannot take yet (the buckets the stream
 * passed before reaching the last): a window's rows fit; a table scan goes on as a reader per bucket.
 */
const ONE_CALL_BUFFER_ROWS = 16_384;

export class ReadDeadlineError extends Error {
  override readonly name = "ReadDeadlineError";
}

/** A TableScan iterated a second time: it reads once (table.scan() again for another pass). */
export class ScanReusedError extends Error {
  override readonly name = "ScanReusedError";
}

export interface ScanSettings extends TableReadOptions {
  concurrency: number;
  pageSize: number;
  retry: RetryPolicy;
  /** This read is sampled: each range it scans is recorded here when it ends. */
  accessLog?: AccessLogSink;
  /** Where the warning about skipped rows goes (default: process.emitWarning). */
  onWarning?: (warning: TableWarning) => void;
  /** Schemas with write shards: the merge of a logical row's shards, given its key. */
  mergeShards?: (key: Buffer) => ShardCellMerge;
}

/** A planned range's rows and bytes read, for the access log. */
interface ScannedRange {
  range: KeyRange;
  rows: number;
  bytes: number;
}

/** One read: iterate it for rows; `report` fills in as it goes and is final at the end. */
export class TableScan<D extends Decoded = Decoded> implements AsyncIterable<TableRow<D>> {
  readonly report: TableReadReport;
  private started = false;

  constructor(
    private readonly store: Store,
    private readonly schema: KeySchema<FieldValues, D>,
    plan: QueryPlan,
    private readonly settings: ScanSettings,
  ) {
    this.report = {
      plan,
      rowsScanned: 0,
      rowsReturned: 0,
      readAmplification: 0,
      rounds: 0,
      retries: 0,
      partial: false,
      failedBuckets: [],
      rowsUndecodable: 0,
      undecodable: [],
    };
  }

  async toArray(): Promise<TableRow<D>[]> {
    const rows: TableRow<D>[] = [];
    for await (const row of this) rows.push(row);
    return rows;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<TableRow<D>, void, undefined> {
    // The report describes one read; a second pass would mix two reads' counts and limits.
    if (this.started)
      throw new ScanReusedError("a TableScan reads once; call table.scan() again for another pass");
    this.started = true;
    const { plan } = this.report;
    const limit = plan.limit ?? Number.POSITIVE_INFINITY;
    if (limit === 0) return;
    const stop = new AbortController();
    const deadline =
      this.settings.deadlineMs === undefined ? undefined : AbortSignal.timeout(this.settings.deadlineMs);
    const others = [this.settings.signal, deadline].filter((s) => s !== undefined);
    // A composed signal costs a read's share of weak references; most reads have none to compose.
    const signal = others.length === 0 ? stop.signal : AbortSignal.any([stop.signal, ...others]);
    // Every bucket stream listens for the abort; Node warns past 10 listeners by default.
    setMaxListeners(10 + 2 * plan.ranges.length, signal);
    const decoder = new RowDecoder(this.schema, this.store.name, this.settings.strict ?? false);
    const started = { tsMs: Date.now(), at: performance.now() };
    const scanned: ScannedRange[] = [];
    // A logical row of a sharded entity is up to shardsPerRow physical rows, all before the next one's.
    const { sources: readerSources, reads } = this.bucketSources(
      limit * (plan.shardsPerRow ?? 1),
      signal,
      decoder,
      scanned,
    );
    const merger =
      plan.shardsPerRow === undefined
        ? undefined
        : new ShardRowMerger<D>(this.schema, this.settings.mergeShards ?? sameCells(this.store.name));
    const sources = readerSources.map((source) => this.partialTolerant(source, signal));
    const pages = (sources.length === 1 ? pagesOf(sources[0]!) : mergeSortedPages(sources, bySortKey))[
      Symbol.asyncIterator
    ]();
    try {
      for (let next = await pages.next(); !next.done; next = await pages.next()) {
        for (const { row } of next.value) {
          const logical = merger ? merger.push(row) : row;
          if (logical === undefined) continue;
          this.report.rowsReturned++;
          yield logical;
          if (this.report.rowsReturned >= limit) return;
        }
      }
      const last = merger?.flush();
      if (last !== undefined) {
        this.report.rowsReturned++;
        yield last;
      }
    } catch (error) {
      if (deadline?.aborted) {
        throw new ReadDeadlineError(
          `read of ${this.store.name} exceeded its ${this.settings.deadlineMs} ms deadline after ${this.report.rowsReturned} rows`,
        );
      }
      throw error;
    } finally {
      // Abort before closing, so closing never waits on a fetch still in flight.
      stop.abort(READ_OVER);
      await pages.return?.();
      this.finishReport(decoder, started, scanned, reads());
    }
  }

  /**
   * The page source of each planned range within the data rows: a bounded read (no limit) of
   * several ranges reads them all in one store call (`OneCallRead`), any other read has a reader
   * per range. `reads` gives the rounds of store reads once the read is over.
   */
  private bucketSources(
    limit: number,
    signal: AbortSignal,
    decoder: RowDecoder<D>,
    scanned: ScannedRange[],
  ): { sources: PageSource<SortableRow<TableRow<D>>>[]; reads: () => number } {
    const limiter = pLimit(this.settings.concurrency);
    const buckets = this.bucketReaders(limit, signal, decoder, scanned, limiter);
    const readers: BucketReader<unknown>[] = [];
    const reader = (bucket: (typeof buckets)[number], range: PlannedRange) => {
      const made = bucket.readerFor(range);
      readers.push(made);
      return made;
    };
    const rounds = () => Math.max(0, ...readers.map((made) => made.reads));
    if (Number.isFinite(limit) || buckets.length < 2) {
      return { sources: buckets.map((bucket) => reader(bucket, bucket.range)), reads: rounds };
    }
    const oneCall = new OneCallRead(
      this.store,
      buckets.map((bucket) => bucket.range),
      {
        convert: (row, index) => buckets[index]!.convert(row),
        pageSize: this.settings.pageSize,
        bufferRows: ONE_CALL_BUFFER_ROWS,
        limiter,
        signal,
        ...this.readerTallies(),
        readerFor: (range, index) => reader(buckets[index]!, range),
      },
    );
    return { sources: oneCall.sources, reads: () => oneCall.reads + rounds() };
  }

  /**
   * Each planned range within the data rows, with the decoding of its rows (tallied in `scanned`
   * with an access log) and the reader of a range of it. A limit-bound read asks each bucket for
   * its share of the limit first, every bucket at once; a bucket the merge empties before the
   * limit is reached is then read again for as many rows as it gave so far (at least its share, at
   * most the rows still wanted). Every row read but not returned is in some bucket's last read, so
   * rows scanned ≤ limit + Σ last reads ≤ 2 × limit + buckets × share (plus undecodable rows).
   */
  private bucketReaders(
    limit: number,
    signal: AbortSignal,
    decoder: RowDecoder<D>,
    scanned: ScannedRange[],
    limiter: LimitFunction,
  ): {
    range: PlannedRange;
    convert: (row: StoreRow) => SortableRow<TableRow<D>> | undefined;
    readerFor: (range: PlannedRange) => BucketReader<SortableRow<TableRow<D>>>;
  }[] {
    const saltLength = this.schema.saltPrefixLength;
    const dataRanges = this.report.plan.ranges.flatMap((range) => clipToData(range) ?? []);
    const share = Number.isFinite(limit) ? bucketShare(limit, Math.max(1, dataRanges.length)) : undefined;
    const readSize =
      share === undefined
        ? undefined
        : (delivered: number) =>
            Math.max(1, Math.min(Math.max(share, delivered), limit - this.report.rowsReturned));
    return dataRanges.map((dataRange) => {
      const tally = { range: dataRange, rows: 0, bytes: 0 };
      if (this.settings.accessLog) scanned.push(tally);
      const convert = (row: StoreRow): SortableRow<TableRow<D>> | undefined => {
        if (this.settings.accessLog) {
          tally.rows++;
          tally.bytes += rowBytes(row.cells);
        }
        const tableRow = decoder.decode(row);
        return tableRow && { row: tableRow, sortKey: row.key.toString("latin1", saltLength) };
      };
      const readerFor = (range: PlannedRange) =>
        new BucketReader(this.store, range, {
          limit,
          ...(readSize === undefined ? {} : { readSize }),
          pageSize: Math.min(this.settings.pageSize, limit),
          limiter,
          retry: this.settings.retry,
          signal,
          convert,
          ...this.readerTallies(),
        });
      return { range: dataRange, convert, readerFor };
    });
  }

  /** What every store reader of this read is given: its app profile, and where it tallies rows scanned and retries. */
  private readerTallies(): {
    appProfile?: string;
    onRowsScanned: (count: number) => void;
    onRetry: () => void;
  } {
    return {
      ...(this.settings.appProfile === undefined ? {} : { appProfile: this.settings.appProfile }),
      onRowsScanned: (count) => {
        this.report.rowsScanned += count;
      },
      onRetry: () => {
        this.report.retries++;
      },
    };
  }

  /** Once the read ended: read amplification and undecodable rows into the report, the warning, the access log lines. */
  private finishReport(
    decoder: RowDecoder<D>,
    started: { tsMs: number; at: number },
    scanned: ScannedRange[],
    rounds: number,
  ): void {
    this.report.readAmplification = this.report.rowsScanned / Math.max(1, this.report.rowsReturned);
    this.report.rounds = rounds;
    this.report.rowsUndecodable = decoder.count;
    this.report.undecodable = [...decoder.first];
    const warning = decoder.warning();
    if (warning) (this.settings.onWarning ?? emitTableWarning)(warning);
    const latencyMs = performance.now() - started.at;
    // Ranges are tallied only for a sampled read, which has its sink.
    const sink = this.settings.accessLog;
    if (sink === undefined) return;
    for (const { range, rows, bytes } of scanned) {
      sink.write({
        tsMs: started.tsMs,
        key: range.start,
        end: range.end,
        op: "scan",
        rows,
        bytes,
        latencyMs,
      });
    }
  }

  /**
   * A bucket's pages for the merge, absorbing its failure when partial results are allowed — but
   * never an abort, a deadline or a strict read's undecodable row, which end the whole read.
   */
  private partialTolerant(
    reader: PageSource<SortableRow<TableRow<D>>>,
    signal: AbortSignal,
  ): PageSource<SortableRow<TableRow<D>>> {
    return {
      nextPage: async () => {
        try {
          return await reader.nextPage();
        } catch (error) {
          if (!(this.settings.allowPartial && error instanceof BucketReadError) || signal.aborted)
            throw error;
          this.report.partial = true;
          this.report.failedBuckets.push({ bucket: error.bucket, error: error.message });
          return null;
        }
      },
      close: () => reader.close(),
    };
  }
}

async function* pagesOf<T>(source: PageSource<T>): AsyncGenerator<T[], void, undefined> {
  try {
    for (let page = await source.nextPage(); page !== null; page = await source.nextPage()) yield page;
  } finally {
    await source.close();
  }
}

/** Bytes of a row's cells (qualifiers and values), as an access record counts them. */
export function rowBytes(cells: ReadonlyMap<string, Buffer>): number {
  let bytes = 0;
  for (const [qualifier, value] of cells) bytes += qualifier.length + value.length;
  return bytes;
}

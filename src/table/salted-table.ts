/**
 * A table whose keys follow a schema: writes salt and encode keys, reads plan the minimum set of
 * bucket ranges, stream them in parallel and merge them back into logical key order.
 */
import { setMaxListeners } from "node:events";
import { LRUCache } from "lru-cache";
import pLimit from "p-limit";
import type { FieldValue, FieldValues, KeySchema, Plan, Query } from "../keys/types.js";
import type { Mutation, Row, Store } from "../store/store.js";
import { BucketReadError, BucketReader, type RetryPolicy } from "./bucket-reader.js";
import { bySortKey, mergeSortedPages, type PageSource, type SortableRow } from "./merge.js";
import { clipToData, guardSchema, isReserved } from "./schema-guard.js";

export type CellsInput = Map<string, Buffer> | Record<string, Buffer | string>;

export interface TableRow {
  key: Buffer;
  bucket: number;
  values: Record<string, FieldValue>;
  cells: Map<string, Buffer>;
}

export interface SaltedTableOptions {
  /** Write the schema row if the table has none (otherwise opening an unknown table fails). */
  create?: boolean;
  /** Bucket streams fetching at the same time, per read. Default 16. */
  concurrency?: number;
  /** Rows fetched per bucket per round trip of the merge. Default 256. */
  pageSize?: number;
  retry?: RetryPolicy;
  /** Serve repeated `latest` reads from memory for `ttlMs` (seed 003: "cache … for a few seconds"). */
  latestCache?: { ttlMs: number; maxEntries?: number };
}

export interface TableReadOptions {
  signal?: AbortSignal;
  /** Fail the read if it takes longer than this. */
  deadlineMs?: number;
  /** Return what the healthy buckets gave when a bucket fails for good, flagged in the report. */
  allowPartial?: boolean;
}

export interface ReadReport {
  plan: Plan;
  /** Rows the store returned across all bucket streams. */
  rowsScanned: number;
  rowsReturned: number;
  /** Rows scanned per row returned (1 is ideal); set when the read ends. */
  readAmplification: number;
  retries: number;
  /** True only with `allowPartial`, when some bucket failed: the rows are then incomplete. */
  partial: boolean;
  failedBuckets: { bucket: number; error: string }[];
}

export interface PutRow {
  values: FieldValues;
  cells: CellsInput;
}

export interface PutResult {
  /** Rows the store could not write after its retries, by their index in the batch. */
  failed: { index: number; values: FieldValues; key: Buffer; reason: string }[];
}

/** A row of a batch whose key cannot be made; the batch was refused before anything was written. */
export class RowKeyError extends Error {
  override readonly name = "RowKeyError";
  constructor(
    /** Position of the row in the batch. */
    readonly index: number,
    readonly reason: string,
  ) {
    super(`row ${index}: ${reason}`);
  }
}

export class ReadDeadlineError extends Error {
  override readonly name = "ReadDeadlineError";
}

const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 20 };

export class SaltedTable {
  private readonly latestCache: LRUCache<string, TableRow[]> | undefined;

  private constructor(
    readonly store: Store,
    readonly schema: KeySchema,
    private readonly options: SaltedTableOptions,
  ) {
    const cache = options.latestCache;
    this.latestCache = cache && new LRUCache({ max: cache.maxEntries ?? 10_000, ttl: cache.ttlMs });
  }

  /** Opens a table, refusing one whose schema row records a different schema. */
  static async open(store: Store, schema: KeySchema, options: SaltedTableOptions = {}): Promise<SaltedTable> {
    for (const name of ["concurrency", "pageSize"] as const) {
      const value = options[name];
      if (value !== undefined && !(Number.isInteger(value) && value >= 1)) {
        throw new RangeError(`${name} is ${value}; allowed: a whole number ≥ 1`);
      }
    }
    await guardSchema(store, schema, options.create ?? false);
    return new SaltedTable(store, schema, options);
  }

  async put(values: FieldValues, cells: CellsInput): Promise<void> {
    const { failed } = await this.putMany([{ values, cells }]);
    if (failed.length > 0)
      throw new Error(`put failed for key ${failed[0]!.key.toString("hex")}: ${failed[0]!.reason}`);
  }

  /**
   * Writes a batch. Every key is encoded before anything is written, so a bad row refuses the
   * whole batch (naming the row); rows the store fails are returned one by one.
   */
  async putMany(rows: readonly PutRow[]): Promise<PutResult> {
    const mutations: Mutation[] = rows.map((row, index) => ({
      type: "put",
      key: this.encodeForWrite(row.values, index),
      cells: toCellMap(row.cells),
    }));
    const { failed } = await this.store.write(mutations);
    return {
      failed: failed.map((failure) => ({ ...failure, values: rows[failure.index]!.values })),
    };
  }

  async delete(values: FieldValues): Promise<void> {
    const { failed } = await this.store.write([{ type: "delete", key: this.encodeForWrite(values, 0) }]);
    if (failed.length > 0) throw new Error(`delete failed: ${failed[0]!.reason}`);
  }

  async get(values: FieldValues): Promise<TableRow | undefined> {
    const key = this.schema.encode(values);
    if (isReserved(key)) return undefined;
    const row = await this.store.get(key);
    return row && this.toTableRow(row);
  }

  /** The ranges a query would read, without reading. */
  explain(query: Query): Plan {
    return this.schema.plan(query);
  }

  /** Rows matching `query` in logical key order (salt ignored), `query.limit` at most. */
  scan(query: Query, options: TableReadOptions = {}): TableScan {
    return new TableScan(this.store, this.schema, this.schema.plan(query), {
      ...options,
      concurrency: this.options.concurrency ?? 16,
      pageSize: this.options.pageSize ?? 256,
      retry: this.options.retry ?? DEFAULT_RETRY,
    });
  }

  /**
   * The newest `n` rows of the entity `query.eq` binds (seed 003's latest-100): the field after the
   * bound ones must be a reverse timestamp, so newest-first is key order and the limit pushes down.
   */
  async latest(query: Omit<Query, "limit">, n: number, options: TableReadOptions = {}): Promise<TableRow[]> {
    this.checkLatestQuery(query);
    // Only complete answers are cached: a partial one must never reach a caller who did not ask for it.
    const cacheKey =
      this.latestCache && !options.allowPartial ? JSON.stringify([query, n], jsonReplacer) : undefined;
    const cached = cacheKey === undefined ? undefined : this.latestCache!.get(cacheKey);
    if (cached) return [...cached];
    const rows = await this.scan({ ...query, limit: n }, options).toArray();
    if (cacheKey !== undefined) this.latestCache!.set(cacheKey, [...rows]);
    return rows;
  }

  toTableRow(row: Row): TableRow {
    return tableRowOf(this.schema, row);
  }

  private encodeForWrite(values: FieldValues, index: number): Buffer {
    let key: Buffer;
    try {
      key = this.schema.encode(values);
    } catch (error) {
      throw new RowKeyError(index, error instanceof Error ? error.message : String(error));
    }
    if (isReserved(key)) {
      throw new RowKeyError(
        index,
        "keys starting with eight 0xFF bytes are reserved for keyspread's schema row",
      );
    }
    return key;
  }

  private checkLatestQuery(query: Omit<Query, "limit">): void {
    const eq = query.eq ?? {};
    const bound = this.schema.fields.findIndex((field) => eq[field.name] === undefined);
    const next = this.schema.fields[bound];
    if (next === undefined || next.codec.type !== "timestamp" || !next.codec.reverse) {
      throw new Error(
        `latest needs a reverse timestamp right after the bound fields; ` +
          `field ${next ? `"${next.name}" is ${describeCodec(next.codec)}` : "after them does not exist"}` +
          ` in schema "${this.schema.spec.name}"`,
      );
    }
  }
}

interface ScanSettings extends TableReadOptions {
  concurrency: number;
  pageSize: number;
  retry: RetryPolicy;
}

/** One read: iterate it for rows; `report` fills in as it goes and is final at the end. */
export class TableScan implements AsyncIterable<TableRow> {
  readonly report: ReadReport;
  private started = false;

  constructor(
    private readonly store: Store,
    private readonly schema: KeySchema,
    plan: Plan,
    private readonly settings: ScanSettings,
  ) {
    this.report = {
      plan,
      rowsScanned: 0,
      rowsReturned: 0,
      readAmplification: 0,
      retries: 0,
      partial: false,
      failedBuckets: [],
    };
  }

  async toArray(): Promise<TableRow[]> {
    const rows: TableRow[] = [];
    for await (const row of this) rows.push(row);
    return rows;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<TableRow, void, undefined> {
    // The report describes one read; a second pass would mix two reads' counts and limits.
    if (this.started) throw new Error("a TableScan reads once; call table.scan() again for another pass");
    this.started = true;
    const { plan } = this.report;
    const limit = plan.limit ?? Number.POSITIVE_INFINITY;
    if (limit === 0) return;
    const stop = new AbortController();
    const deadline =
      this.settings.deadlineMs === undefined ? undefined : AbortSignal.timeout(this.settings.deadlineMs);
    const signal = AbortSignal.any([
      stop.signal,
      ...[this.settings.signal, deadline].filter((s) => s !== undefined),
    ]);
    // Every bucket stream listens for the abort; Node warns past 10 listeners by default.
    setMaxListeners(10 + 2 * plan.ranges.length, signal);
    const limiter = pLimit(this.settings.concurrency);
    const saltLength = this.schema.saltPrefixLength;
    const sources = plan.ranges.flatMap((range) => {
      const dataRange = clipToData(range);
      if (dataRange === undefined) return [];
      const reader = new BucketReader(this.store, dataRange, {
        limit,
        pageSize: Math.min(this.settings.pageSize, limit),
        limiter,
        retry: this.settings.retry,
        signal,
        onRowsScanned: (count) => {
          this.report.rowsScanned += count;
        },
        onRetry: () => {
          this.report.retries++;
        },
      });
      return [this.sortable(reader, saltLength, signal)];
    });
    const pages = (sources.length === 1 ? pagesOf(sources[0]!) : mergeSortedPages(sources, bySortKey))[
      Symbol.asyncIterator
    ]();
    try {
      for (let next = await pages.next(); !next.done; next = await pages.next()) {
        for (const { row } of next.value) {
          this.report.rowsReturned++;
          yield tableRowOf(this.schema, row);
          if (this.report.rowsReturned >= limit) return;
        }
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
      stop.abort();
      await pages.return?.();
      this.report.readAmplification = this.report.rowsScanned / Math.max(1, this.report.rowsReturned);
    }
  }

  /**
   * Adapts a bucket's pages for the merge, and absorbs its failure when partial results are
   * allowed — but never an abort or a deadline, which end the whole read.
   */
  private sortable(reader: BucketReader, saltLength: number, signal: AbortSignal): PageSource<SortableRow> {
    return {
      nextPage: async () => {
        try {
          const page = await reader.nextPage();
          return page === null
            ? null
            : page.map((row) => ({ row, sortKey: row.key.toString("latin1", saltLength) }));
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

/**
 * A planned range cut to the data: every key at or above eight 0xFF bytes is keyspread's own
 * (data keys there are refused), so no read reaches the schema row. Undefined when nothing is left.
 */
function tableRowOf(schema: KeySchema, row: Row): TableRow {
  const { bucket, values } = schema.decode(row.key);
  return { key: row.key, bucket, values, cells: row.cells };
}

function toCellMap(cells: CellsInput): Map<string, Buffer> {
  if (cells instanceof Map) return cells;
  return new Map(
    Object.entries(cells).map(([name, value]) => [name, Buffer.isBuffer(value) ? value : Buffer.from(value)]),
  );
}

function describeCodec(codec: KeySchema["fields"][number]["codec"]): string {
  return codec.type === "timestamp" ? `a ${codec.reverse ? "reverse " : ""}timestamp` : `a ${codec.type}`;
}

function jsonReplacer(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? `${value}n` : value;
}

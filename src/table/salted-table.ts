/**
 * A table whose keys follow a schema: writes salt and encode keys, reads plan the minimum set of
 * bucket ranges, stream them in parallel and merge them back into logical key order. The table may
 * be shared with other code: writes change only the cells they name, and reads skip (and report)
 * rows the schema cannot decode.
 */
import { setMaxListeners } from "node:events";
import { LRUCache } from "lru-cache";
import pLimit from "p-limit";
import { type AccessLogSampling, type AccessLogSink, sampler } from "../access-log/sink.js";
import { checkQueryFields } from "../keys/planner.js";
import type { FieldValue, FieldValues, KeySchema, Query, QueryPlan } from "../keys/types.js";
import type { KeyRange, Store, StoreMutation, StoreRow } from "../store/store.js";
import { checkAppProfile } from "../store/validate.js";
import { BucketReadError, BucketReader, type RetryPolicy } from "./bucket-reader.js";
import { bucketShare } from "./bucket-share.js";
import { bySortKey, mergeSortedPages, type PageSource, type SortableRow } from "./merge.js";
import {
  emitTableWarning,
  RowDecoder,
  type TableRow,
  type TableWarning,
  type UndecodableRow,
} from "./row-decoder.js";
import { outsideBucketsWarning } from "./salt-out-of-range.js";
import { clipToData, guardSchema, isReserved } from "./schema-guard.js";
import {
  roundRobinShards,
  type ShardCellMerge,
  type ShardChooser,
  ShardedKeys,
  ShardRowMerger,
  sameCells,
} from "./write-shards.js";

export type { TableRow, TableWarning, UndecodableRow } from "./row-decoder.js";
export { UndecodableRowError } from "./row-decoder.js";
export {
  type ShardCellMerge,
  type ShardChooser,
  ShardMergeError,
  sumInt64Cells,
} from "./write-shards.js";

export type CellsInput = Map<string, Buffer> | Record<string, Buffer | string>;

/** Read and write paths that may each route to their own Bigtable app profile. */
export interface AppProfiles {
  /** `latest`: the fleet incident's latest-N, e.g. a single-cluster profile for read-your-writes. */
  latest?: string;
  /** `scan` (range reads), e.g. a multi-cluster profile for dashboards. */
  scan?: string;
  get?: string;
  /** put, putMany, delete. */
  write?: string;
}

export interface SaltedTableOptions {
  /** Write the schema row if the table has none (otherwise opening an unknown table fails). */
  create?: boolean;
  /** Bucket streams fetching at the same time, per read. Default 16. */
  concurrency?: number;
  /** Rows fetched per bucket per round trip of the merge. Default 256. */
  pageSize?: number;
  retry?: RetryPolicy;
  /** Serve repeated `latest` reads from memory for `ttlMs` (the fleet incident: "cache … for a few seconds"). */
  latestCache?: { ttlMs: number; maxEntries?: number };
  /**
   * Reads fail on a row in their ranges that the schema cannot decode, naming it (default: such
   * rows are skipped, counted in the report and warned about).
   */
  strict?: boolean;
  /** Where warnings go: skipped rows, keys written outside the salt's buckets. Default: process.emitWarning. */
  onWarning?: (warning: TableWarning) => void;
  /**
   * App profile per path (Bigtable routing; other stores ignore it). An operation's own
   * `appProfile` wins; without either the store's default applies.
   */
  appProfiles?: AppProfiles;
  /**
   * Records a sample of operations in the access-log format `keyspread heatmap` and `keyspread
   * replay` read: each row written, each get, and each range a sampled read scanned (its start and
   * end key, rows and bytes). The sink queues or drops, never blocking the operation.
   */
  accessLog?: AccessLogSampling;
  /** Schemas with write shards: the shard each write of a sharded row goes to (default: round-robin from a random start). */
  chooseShard?: ShardChooser;
  /**
   * Schemas with write shards: how a column's values from a logical row's shards combine on read
   * (default: equal values are that value, different ones fail the read naming the row and column).
   */
  mergeShards?: ShardCellMerge;
}

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

export interface TableWriteOptions {
  /** The row's cells become exactly these (default: the named cells are set, the others kept). */
  replace?: boolean;
  /** This write's app profile. */
  appProfile?: string;
}

export interface TableDeleteOptions {
  /** Delete only these cells (the row goes with its last cell); default: the whole row. */
  cells?: readonly string[];
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

/** Field values decoded from keys: a typed schema's, else any field's. */
type Decoded = Record<string, FieldValue>;

export interface PutRow<V extends FieldValues = FieldValues> {
  values: V;
  cells: CellsInput;
}

export interface PutResult<V extends FieldValues = FieldValues> {
  /** Rows the store could not write (or delete) after its retries, by their index in the batch. */
  failed: { index: number; values: V; key: Buffer; reason: string }[];
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

/**
 * The two calls `latest` makes on its LRU cache, as methods (compared bivariantly): a typed table
 * still passes where a `SaltedTable` is taken, which the cache's own invariant type would forbid.
 */
interface LatestCache<D extends Decoded> {
  get(key: string): TableRow<D>[] | undefined;
  set(key: string, rows: TableRow<D>[]): unknown;
}

/**
 * `V` and `D` are the schema's field values as written and as read back: typed for a schema
 * compiled from a literal spec (`compileSchema`, `defineSchema`), any field's for one read from a file.
 */
export class SaltedTable<V extends FieldValues = FieldValues, D extends Decoded = Decoded> {
  private readonly latestCache: LatestCache<D> | undefined;
  private readonly warn: (warning: TableWarning) => void;
  private readonly sampled: () => boolean;
  private readonly shardedKeys: ShardedKeys;

  private constructor(
    readonly store: Store,
    readonly schema: KeySchema<V, D>,
    private readonly options: SaltedTableOptions,
  ) {
    const cache = options.latestCache;
    this.latestCache = cache && new LRUCache({ max: cache.maxEntries ?? 10_000, ttl: cache.ttlMs });
    this.warn = options.onWarning ?? emitTableWarning;
    this.sampled = options.accessLog ? sampler(options.accessLog.sampleRate) : () => false;
    this.shardedKeys = new ShardedKeys(schema, options.chooseShard ?? roundRobinShards());
  }

  /**
   * Opens a table, refusing one whose schema row records a different schema. With `create`, a
   * table without a schema row gets one — if it holds no rows yet (a table with rows of its own
   * is adopted with `adoptTable`, which first checks that its keys decode).
   */
  static async open<V extends FieldValues, D extends Decoded>(
    store: Store,
    schema: KeySchema<V, D>,
    options: SaltedTableOptions = {},
  ): Promise<SaltedTable<V, D>> {
    for (const name of ["concurrency", "pageSize"] as const) {
      const value = options[name];
      if (value !== undefined && !(Number.isInteger(value) && value >= 1)) {
        throw new RangeError(`${name} is ${value}; allowed: a whole number ≥ 1`);
      }
    }
    for (const [path, appProfile] of Object.entries(options.appProfiles ?? {})) {
      try {
        checkAppProfile({ appProfile });
      } catch (error) {
        throw new TypeError(`appProfiles.${path}: ${(error as Error).message}`);
      }
    }
    await guardSchema(store, schema, options.create ?? false, options.appProfiles?.write);
    return new SaltedTable(store, schema, options);
  }

  /** The app profile an operation of `path` sends: its own, else the table's for the path. */
  appProfileFor(path: keyof AppProfiles, own?: string): string | undefined {
    return own ?? this.options.appProfiles?.[path];
  }

  async put(values: V, cells: CellsInput, options: TableWriteOptions = {}): Promise<void> {
    const { failed } = await this.putMany([{ values, cells }], options);
    if (failed.length > 0)
      throw new Error(`put failed for key ${failed[0]!.key.toString("hex")}: ${failed[0]!.reason}`);
  }

  /**
   * Writes a batch: each row's named cells are set (new versions on Bigtable) and its other cells
   * kept, or with `replace` its cells become exactly these. Every key is encoded before anything
   * is written, so a bad row refuses the whole batch (naming the row); rows the store fails are
   * returned one by one.
   */
  async putMany(rows: readonly PutRow<V>[], options: TableWriteOptions = {}): Promise<PutResult<V>> {
    const replace = options.replace === true;
    const batch = rows.flatMap((row, index) => {
      const key = this.keysForWrite(index, () => [this.shardedKeys.forWrite(row.values)])[0]!;
      const put: StoreMutation = {
        type: "put",
        key,
        cells: toCellMap(row.cells),
        ...(replace ? { replace } : {}),
      };
      // Replacing a sharded row's cells empties its other shards, or a read would merge them back in.
      const others = replace ? this.keysForWrite(index, () => this.shardedKeys.all(row.values)) : [];
      return [
        ...others
          .filter((other) => !other.equals(key))
          .map((other) => ({ index, mutation: deletion(other) })),
        { index, mutation: put },
      ];
    });
    const keys = batch.map(({ index, mutation }) => ({ index, key: mutation.key }));
    const outside = outsideBucketsWarning(this.schema, this.store.name, keys);
    if (outside) this.warn(outside);
    return this.write(batch, rows, options.appProfile);
  }

  /** Deletes the row, or with `cells` only those cells. */
  async delete(values: V, options: TableDeleteOptions = {}): Promise<void> {
    const { cells, ...rest } = options;
    const { failed } = await this.deleteMany([{ values, ...(cells ? { cells } : {}) }], rest);
    if (failed.length > 0) throw new Error(`delete failed: ${failed[0]!.reason}`);
  }

  /**
   * Deletes a batch: each row whole, or only its listed `cells`. Keys are encoded before anything
   * is deleted (a bad row refuses the batch, naming it); rows the store fails come back one by one.
   */
  async deleteMany(
    rows: readonly { values: V; cells?: readonly string[] }[],
    options: { appProfile?: string } = {},
  ): Promise<PutResult<V>> {
    const batch = rows.flatMap(({ values, cells }, index) =>
      this.keysForWrite(index, () => this.shardedKeys.all(values)).map((key) => ({
        index,
        mutation: deletion(key, cells),
      })),
    );
    return this.write(batch, rows, options.appProfile);
  }

  /** Writes a batch's mutations; a failure names the row of the batch it came from. */
  private async write(
    batch: readonly { index: number; mutation: StoreMutation }[],
    rows: readonly { values: V }[],
    appProfile: string | undefined,
  ): Promise<PutResult<V>> {
    const mutations = batch.map(({ mutation }) => mutation);
    const started = performance.now();
    const { failed } = await this.store.write(mutations, this.routing("write", appProfile));
    this.logWrites(mutations, started);
    return {
      failed: failed.map((failure) => {
        const index = batch[failure.index]!.index;
        return { ...failure, index, values: rows[index]!.values };
      }),
    };
  }

  async get(values: V, options: { appProfile?: string } = {}): Promise<TableRow<D> | undefined> {
    if (this.schema.shardsOf(values) > 1) {
      const appProfile = this.appProfileFor("get", options.appProfile);
      const [row] = await this.scanWith(
        { eq: values },
        appProfile === undefined ? {} : { appProfile },
      ).toArray();
      return row;
    }
    const key = this.schema.encode(values);
    if (isReserved(key)) return undefined;
    const started = performance.now();
    const row = await this.store.get(key, this.routing("get", options.appProfile));
    if (this.sampled()) {
      this.options.accessLog!.sink.write({
        tsMs: Date.now(),
        key,
        op: "read",
        bytes: row ? rowBytes(row.cells) : 0,
        latencyMs: performance.now() - started,
      });
    }
    // The key was encoded from the values, so it decodes; if not, say which row and why.
    return row && new RowDecoder(this.schema, this.store.name, true).decode(row);
  }

  /** The ranges a query would read, without reading. */
  explain(query: Query<V>): QueryPlan {
    return this.schema.plan(query);
  }

  /** Rows matching `query` in logical key order (salt ignored), `query.limit` at most. */
  scan(query: Query<V>, options: TableReadOptions = {}): TableScan<D> {
    return this.scanWith(query, { ...options, appProfile: this.appProfileFor("scan", options.appProfile) });
  }

  /**
   * The newest `n` rows of the entity `query.eq` binds (the fleet incident's latest-100): the field after the
   * bound ones must be a reverse timestamp, so newest-first is key order and the limit pushes down.
   */
  async latest(
    query: Omit<Query<V>, "limit">,
    n: number,
    options: TableReadOptions = {},
  ): Promise<TableRow<D>[]> {
    this.checkLatestQuery(query);
    // Only complete answers are cached: a partial one must never reach a caller who did not ask for it.
    const cacheKey =
      this.latestCache && !options.allowPartial ? JSON.stringify([query, n], jsonReplacer) : undefined;
    const cached = cacheKey === undefined ? undefined : this.latestCache!.get(cacheKey);
    if (cached) return [...cached];
    const rows = await this.scanWith(
      { ...query, limit: n },
      { ...options, appProfile: this.appProfileFor("latest", options.appProfile) },
    ).toArray();
    if (cacheKey !== undefined) this.latestCache!.set(cacheKey, [...rows]);
    return rows;
  }

  /** The row decoded (throws KeyDecodeError when the schema cannot decode its key). */
  toTableRow(row: StoreRow): TableRow<D> {
    const { bucket, values } = this.schema.decode(row.key);
    return { key: row.key, bucket, values, cells: row.cells };
  }

  private scanWith(query: Query<V>, options: TableReadOptions): TableScan<D> {
    const accessLog = this.options.accessLog && this.sampled() ? this.options.accessLog.sink : undefined;
    const mergeShards = this.options.mergeShards;
    return new TableScan(this.store, this.schema, this.schema.plan(query), {
      ...options,
      ...(accessLog ? { accessLog } : {}),
      mergeShards: mergeShards ? () => mergeShards : sameCells(this.store.name),
      strict: options.strict ?? this.options.strict ?? false,
      onWarning: this.warn,
      concurrency: this.options.concurrency ?? 16,
      pageSize: this.options.pageSize ?? 256,
      retry: this.options.retry ?? DEFAULT_RETRY,
    });
  }

  /** Each sampled row of a write batch, with the batch's latency. */
  private logWrites(mutations: readonly StoreMutation[], started: number): void {
    const sink = this.options.accessLog?.sink;
    if (sink === undefined) return;
    const tsMs = Date.now();
    const latencyMs = performance.now() - started;
    for (const mutation of mutations) {
      if (!this.sampled()) continue;
      const bytes = mutation.type === "put" ? rowBytes(mutation.cells) : 0;
      sink.write({ tsMs, key: mutation.key, op: "write", bytes, latencyMs });
    }
  }

  private routing(path: keyof AppProfiles, own: string | undefined): { appProfile?: string } {
    const appProfile = this.appProfileFor(path, own);
    return appProfile === undefined ? {} : { appProfile };
  }

  /** The keys `encode` makes for row `index` of a batch; a key that cannot be made refuses the batch. */
  private keysForWrite(index: number, encode: () => Buffer[]): Buffer[] {
    let keys: Buffer[];
    try {
      keys = encode();
    } catch (error) {
      throw new RowKeyError(index, error instanceof Error ? error.message : String(error));
    }
    if (keys.some(isReserved)) {
      throw new RowKeyError(
        index,
        "keys starting with eight 0xFF bytes are reserved for keyspread's schema row",
      );
    }
    return keys;
  }

  private checkLatestQuery(query: Omit<Query<V>, "limit">): void {
    checkQueryFields(this.schema, query);
    const eq: { readonly [field: string]: unknown } = query.eq ?? {};
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
    const decoder = new RowDecoder(this.schema, this.store.name, this.settings.strict ?? false);
    const started = { tsMs: Date.now(), at: performance.now() };
    const scanned: ScannedRange[] = [];
    // A logical row of a sharded entity is up to shardsPerRow physical rows, all before the next one's.
    const readers = this.bucketReaders(limit * (plan.shardsPerRow ?? 1), signal, decoder, scanned);
    const merger =
      plan.shardsPerRow === undefined
        ? undefined
        : new ShardRowMerger<D>(this.schema, this.settings.mergeShards ?? sameCells(this.store.name));
    const sources = readers.map((reader) => this.partialTolerant(reader, signal));
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
      stop.abort();
      await pages.return?.();
      this.finishReport(decoder, started, scanned, readers);
    }
  }

  /**
   * One reader per planned range within the data rows, its rows decoded and (with an access log)
   * tallied in `scanned`. A limit-bound read asks each bucket for its share of the limit first,
   * every bucket at once; a bucket the merge empties before the limit is reached is then read
   * again for as many rows as it gave so far (at least its share, at most the rows still
   * wanted). Every row read but not returned is in some bucket's last read, so
   * rows scanned ≤ limit + Σ last reads ≤ 2 × limit + buckets × share (plus undecodable rows).
   */
  private bucketReaders(
    limit: number,
    signal: AbortSignal,
    decoder: RowDecoder<D>,
    scanned: ScannedRange[],
  ): BucketReader<SortableRow<TableRow<D>>>[] {
    const limiter = pLimit(this.settings.concurrency);
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
      return new BucketReader(this.store, dataRange, {
        limit,
        ...(readSize === undefined ? {} : { readSize }),
        pageSize: Math.min(this.settings.pageSize, limit),
        limiter,
        retry: this.settings.retry,
        signal,
        convert,
        ...(this.settings.appProfile === undefined ? {} : { appProfile: this.settings.appProfile }),
        onRowsScanned: (count) => {
          this.report.rowsScanned += count;
        },
        onRetry: () => {
          this.report.retries++;
        },
      });
    });
  }

  /** Once the read ended: read amplification and undecodable rows into the report, the warning, the access log lines. */
  private finishReport(
    decoder: RowDecoder<D>,
    started: { tsMs: number; at: number },
    scanned: ScannedRange[],
    readers: readonly BucketReader<unknown>[],
  ): void {
    this.report.readAmplification = this.report.rowsScanned / Math.max(1, this.report.rowsReturned);
    this.report.rounds = Math.max(0, ...readers.map((reader) => reader.reads));
    this.report.rowsUndecodable = decoder.count;
    this.report.undecodable = [...decoder.first];
    const warning = decoder.warning();
    if (warning) (this.settings.onWarning ?? emitTableWarning)(warning);
    const latencyMs = performance.now() - started.at;
    for (const { range, rows, bytes } of scanned) {
      this.settings.accessLog!.write({
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
    reader: BucketReader<SortableRow<TableRow<D>>>,
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

function deletion(key: Buffer, qualifiers?: readonly string[]): StoreMutation {
  return qualifiers === undefined ? { type: "delete", key } : { type: "delete", key, qualifiers };
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

/** Bytes of a row's cells (qualifiers and values), as an access record counts them. */
function rowBytes(cells: ReadonlyMap<string, Buffer>): number {
  let bytes = 0;
  for (const [qualifier, value] of cells) bytes += qualifier.length + value.length;
  return bytes;
}

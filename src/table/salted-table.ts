/**
 * A table whose keys follow a schema: writes salt and encode keys, reads plan the minimum set of
 * bucket ranges, stream them in parallel and merge them back into logical key order. The table may
 * be shared with other code: writes change only the cells they name, and reads skip (and report)
 * rows the schema cannot decode.
 */
import { LRUCache } from "lru-cache";
import { type AccessLogSampling, sampler } from "../access-log/sink.js";
import type { FieldValues, KeySchema, Query, QueryPlan } from "../keys/types.js";
import { type Store, StoreArgumentError, type StoreMutation, type StoreRow } from "../store/store.js";
import { checkAppProfile } from "../store/validate.js";
import type { RetryPolicy } from "./bucket-reader.js";
import { checkLatestQuery } from "./latest-query.js";
import { checkCount, checkShare } from "./option-error.js";
import { emitTableWarning, RowDecoder, type TableRow, type TableWarning } from "./row-decoder.js";
import { keysForWrite } from "./row-keys.js";
import { outsideBucketsWarning } from "./salt-out-of-range.js";
import { guardSchema, isReserved } from "./schema-guard.js";
import { type Decoded, rowBytes, type TableReadOptions, TableScan } from "./table-scan.js";
import {
  roundRobinShards,
  type ShardCellMerge,
  type ShardChooser,
  ShardedKeys,
  sameCells,
} from "./write-shards.js";

export type { TableRow, TableWarning, UndecodableRow } from "./row-decoder.js";
export { UndecodableRowError } from "./row-decoder.js";
export { RowKeyError } from "./row-keys.js";
export {
  ReadDeadlineError,
  type ScanSettings,
  type TableReadOptions,
  type TableReadReport,
  TableScan,
} from "./table-scan.js";
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

export interface PutRow<V extends FieldValues = FieldValues> {
  values: V;
  cells: CellsInput;
}

export interface PutResult<V extends FieldValues = FieldValues> {
  /** Rows the store could not write (or delete) after its retries, by their index in the batch. */
  failed: { index: number; values: V; key: Buffer; reason: string }[];
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
      if (value !== undefined) checkCount(name, value);
    }
    const sampleRate = options.accessLog?.sampleRate;
    if (sampleRate !== undefined) checkShare("accessLog.sampleRate", sampleRate);
    for (const [path, appProfile] of Object.entries(options.appProfiles ?? {})) {
      try {
        checkAppProfile({ appProfile });
      } catch (error) {
        if (!(error instanceof StoreArgumentError)) throw error;
        throw new StoreArgumentError(
          `appProfiles.${path}`,
          appProfile,
          error.allowed,
          `appProfiles.${path}: ${error.message}`,
        );
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
      const key = keysForWrite(index, () => [this.shardedKeys.forWrite(row.values)])[0]!;
      const put: StoreMutation = {
        type: "put",
        key,
        cells: toCellMap(row.cells),
        ...(replace ? { replace } : {}),
      };
      // Replacing a sharded row's cells empties its other shards, or a read would merge them back in.
      const others = replace ? keysForWrite(index, () => this.shardedKeys.all(row.values)) : [];
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
      keysForWrite(index, () => this.shardedKeys.all(values)).map((key) => ({
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
    const sink = this.options.accessLog?.sink;
    if (sink && this.sampled()) {
      sink.write({
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
    checkLatestQuery(this.schema, query);
    // Only complete answers are cached: a partial one must never reach a caller who did not ask for it.
    const cache =
      this.latestCache && !options.allowPartial
        ? { rows: this.latestCache, key: JSON.stringify([query, n], jsonReplacer) }
        : undefined;
    const cached = cache?.rows.get(cache.key);
    if (cached) return [...cached];
    const rows = await this.scanWith(
      { ...query, limit: n },
      { ...options, appProfile: this.appProfileFor("latest", options.appProfile) },
    ).toArray();
    cache?.rows.set(cache.key, [...rows]);
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

function jsonReplacer(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? `${value}n` : value;
}

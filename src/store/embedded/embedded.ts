/**
 * The zero-setup persistent store: one LevelDB directory per table (classic-level), by default
 * `./.keyspread/<table>`, one entry per cell (see cell-keys.ts), so puts never read first. LevelDB was chosen over LMDB by measurement on this project's
 * workloads: 3–4× the batched write rate (LMDB misses the 200k rows/s target when durable), Bigtable's
 * full 4 KiB keys (LMDB stops near 2 KB) and far less disk; LMDB's faster point gets and scans
 * matter less for a development default whose latest-100 read still takes well under a millisecond.
 */
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ClassicLevel, type KeyIterator } from "classic-level";
import { AbstractStore, type CheckedReadOptions, type CheckedWriteOptions } from "../abstract-store.js";
import {
  cellKey,
  escapeRowKey,
  FIRST_CELL_KEY,
  rowPrefix,
  rowPrefixEnd,
  splitCellKey,
} from "../cell-keys.js";
import { sampleSorted } from "../sample.js";
import {
  type CellCondition,
  type FailedMutation,
  type KeyRange,
  StoreArgumentError,
  type StoreMutation,
  type StoreRow,
  type StoreWriteResult,
} from "../store.js";
import { conditionHolds } from "../validate.js";
import { DEFAULT_EMBEDDED_DIRECTORY } from "./embedded-location.js";

export { DEFAULT_EMBEDDED_DIRECTORY };

export interface EmbeddedStoreOptions {
  /** Table name: the data lives in `<directory>/<table>`. Letters, digits, `.`, `_`, `-`. */
  table: string;
  /** Parent directory of the tables (default `./.keyspread`). */
  directory?: string;
  /** Fail instead of creating an empty table when none is there (sources, reads): a typo must not look like an empty table. */
  mustExist?: boolean;
}

/** Mutations per LevelDB batch: bounds memory for huge writes; each batch is atomic. */
const BATCH_OPERATIONS = 10_000;
/** Entries fetched per iterator step; a limited read asks for little more than it needs. */
const READ_CHUNK = 1_000;
/** The store's own entry, below every cell entry: which layout the directory holds. */
const FORMAT_KEY = Buffer.from("\x00\x00keyspread:embedded-format", "latin1");
const FORMAT = "cells-1";

type Level = ClassicLevel<Buffer, Buffer>;

/** LevelDB would not open the directory; `locked` when another process holds it (LevelDB allows one). */
export class EmbeddedOpenError extends Error {
  override readonly name = "EmbeddedOpenError";
  readonly locked: boolean;
  constructor(
    readonly location: string,
    cause: unknown,
  ) {
    const locked = (cause as { cause?: { code?: string } }).cause?.code === "LEVEL_LOCKED";
    const why = locked ? "it is open elsewhere (LevelDB allows one process)" : String(cause);
    super(`cannot open embedded store at ${location}: ${why}`, { cause });
    this.locked = locked;
  }
}

/** `mustExist` was asked and there is no table at `location`. */
export class MissingEmbeddedTableError extends Error {
  override readonly name = "MissingEmbeddedTableError";
  constructor(readonly location: string) {
    super(`no such table: embedded store ${location} does not exist`);
  }
}

/**
 * A directory in a layout this keyspread does not read: `found` is its format marker, or null for
 * keyspread 0.1's unmarked one-entry-per-row layout; `expected` is the format this keyspread reads.
 */
export class EmbeddedFormatError extends Error {
  override readonly name = "EmbeddedFormatError";
  readonly expected = FORMAT;
  constructor(
    readonly location: string,
    readonly found: string | null,
    message: string,
  ) {
    super(message);
  }
}

export class EmbeddedStore extends AbstractStore {
  readonly name: string;
  /** Writes run one at a time: a row replace or delete reads the row's cells, then deletes them. */
  private writing: Promise<unknown> = Promise.resolve();
  /**
   * Set by a failed write: LevelDB's log writer may hold part of the failed record (a disk that
   * filled up mid-write) and does not realign after it, so every later record in that log would be
   * misframed and dropped when the log is next read. The handle is reopened before the next write.
   */
  private untrusted = false;
  private closedByCaller = false;

  private constructor(
    private readonly db: Level,
    readonly location: string,
  ) {
    super();
    this.name = `embedded:${location}`;
  }

  static async open(options: EmbeddedStoreOptions): Promise<EmbeddedStore> {
    if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(options.table)) {
      const allowed = 'letters, digits, ".", "_", "-" (not starting with ".")';
      throw new StoreArgumentError(
        "table",
        options.table,
        allowed,
        `table ${JSON.stringify(options.table)} is not a valid name; allowed: ${allowed}`,
      );
    }
    const location = join(options.directory ?? DEFAULT_EMBEDDED_DIRECTORY, options.table);
    if (options.mustExist && !existsSync(location)) {
      throw new MissingEmbeddedTableError(location);
    }
    await mkdir(dirname(location), { recursive: true });
    const db: Level = new ClassicLevel(location, { keyEncoding: "buffer", valueEncoding: "buffer" });
    try {
      await db.open();
    } catch (error) {
      throw new EmbeddedOpenError(location, error);
    }
    try {
      await checkFormat(db, location);
    } catch (error) {
      await db.close();
      throw error;
    }
    return new EmbeddedStore(db, location);
  }

  protected async _write(
    mutations: readonly StoreMutation[],
    options: CheckedWriteOptions,
  ): Promise<StoreWriteResult> {
    const run = this.writing.then(() => this.apply(mutations, options.durable));
    this.writing = run.catch(() => {});
    return run;
  }

  /** Atomic within the process that holds the directory (LevelDB admits one): it joins the write queue. */
  protected async _checkAndMutate(
    mutation: StoreMutation,
    condition: CellCondition,
    options: CheckedWriteOptions,
  ): Promise<boolean> {
    const run = this.writing.then(async () => {
      if (this.untrusted) await this.reopen();
      if (!conditionHolds((await this._get(mutation.key))?.cells, condition)) return false;
      const { failed } = await this.apply([mutation], options.durable);
      if (failed.length > 0) throw new Error(`${this.name}: checkAndMutate failed: ${failed[0]!.reason}`);
      return true;
    });
    this.writing = run.catch(() => {});
    return run;
  }

  protected async _get(key: Buffer): Promise<StoreRow | undefined> {
    const prefix = rowPrefix(key);
    const entries = await this.db.iterator({ gte: prefix, lt: rowPrefixEnd(prefix) }).all();
    if (entries.length === 0) return undefined;
    const cells = new Map<string, Buffer>();
    for (const [entry, value] of entries) cells.set(entry.toString("utf8", prefix.length), value);
    return { key: Buffer.from(key), cells };
  }

  protected _read(ranges: readonly KeyRange[], options: CheckedReadOptions): AsyncIterable<StoreRow> {
    return this.stream(ranges, options.limit, options.signal);
  }

  protected async _sampleKeys(count: number): Promise<Buffer[]> {
    const keys = this.db.keys({ gt: FIRST_CELL_KEY });
    try {
      return await sampleSorted(rowKeysOf(keys), count);
    } finally {
      await keys.close();
    }
  }

  async close(): Promise<void> {
    this.closedByCaller = true;
    await this.writing;
    await this.db.close();
  }

  private async apply(mutations: readonly StoreMutation[], durable: boolean): Promise<StoreWriteResult> {
    const failed: FailedMutation[] = [];
    for (let first = 0; first < mutations.length; first += BATCH_OPERATIONS) {
      const chunk = mutations.slice(first, first + BATCH_OPERATIONS);
      try {
        if (this.untrusted) await this.reopen();
        await this.writeChunk(chunk, durable);
      } catch (error) {
        this.untrusted = !this.closedByCaller;
        // A LevelDB batch is all-or-nothing: every mutation of the chunk is reported, none lost.
        const reason = `${this.name}: ${error instanceof Error ? error.message : String(error)}`;
        for (const [i, mutation] of chunk.entries())
          failed.push({ index: first + i, key: mutation.key, reason });
      }
    }
    return { failed };
  }

  /**
   * Closes and reopens LevelDB: recovery reads the log up to the record the failed write cut short
   * (keeping every whole record before it) and starts a new log. Fails, leaving the handle
   * untrusted, while the disk is still full; reads meanwhile fail rather than wait.
   */
  private async reopen(): Promise<void> {
    await this.db.close();
    await this.db.open();
    this.untrusted = false;
  }

  /**
   * One atomic batch. Cells put earlier in the batch are tracked, so a later row delete drops them
   * too. A durable batch syncs LevelDB's log, which holds this batch and every earlier one.
   */
  private async writeChunk(chunk: readonly StoreMutation[], durable: boolean): Promise<void> {
    // The chained batch measured ~1.5× faster than the array form (no per-operation objects).
    const batch = this.db.batch();
    const clearsRow = (mutation: StoreMutation) =>
      mutation.type === "put" ? mutation.replace === true : mutation.qualifiers === undefined;
    // Row key (latin1) → cells put earlier in this batch; tracked only when a row is cleared.
    const tracksPuts = chunk.some(clearsRow);
    const putInBatch = new Map<string, Set<string>>();
    for (const mutation of chunk) {
      const { key } = mutation;
      if (clearsRow(mutation)) {
        const prefix = rowPrefix(key);
        const stored = await this.db.keys({ gte: prefix, lt: rowPrefixEnd(prefix) }).all();
        for (const entry of stored) batch.del(entry);
        const id = key.toString("latin1");
        for (const qualifier of putInBatch.get(id) ?? []) batch.del(cellKey(key, qualifier));
        putInBatch.delete(id);
      }
      if (mutation.type === "delete") {
        for (const qualifier of mutation.qualifiers ?? []) batch.del(cellKey(key, qualifier));
        continue;
      }
      for (const [qualifier, value] of mutation.cells) batch.put(cellKey(key, qualifier), value);
      if (tracksPuts) {
        const id = key.toString("latin1");
        putInBatch.set(id, new Set([...(putInBatch.get(id) ?? []), ...mutation.cells.keys()]));
      }
    }
    await batch.write({ sync: durable });
  }

  private async *stream(
    ranges: readonly KeyRange[],
    limit: number,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<StoreRow> {
    let returned = 0;
    for (const range of ranges) {
      if (returned >= limit) return;
      const start = escapeRowKey(range.start);
      const iterator = this.db.iterator({
        // Never below the first cell key: the store's own entries sort there.
        ...(Buffer.compare(start, FIRST_CELL_KEY) > 0 ? { gte: start } : { gt: FIRST_CELL_KEY }),
        ...(range.end === null ? {} : { lt: escapeRowKey(range.end) }),
      });
      // Cells arrive in key order; a row is complete when the next row's first cell shows up.
      let current: { row: StoreRow; prefix: Buffer } | undefined;
      try {
        for (;;) {
          signal?.throwIfAborted();
          // One entry past the rows still wanted tells whether the last of them is complete.
          const entries = await iterator.nextv(Math.min(READ_CHUNK, limit - returned + 1));
          if (entries.length === 0) break;
          for (const [key, value] of entries) {
            signal?.throwIfAborted();
            if (current === undefined || !startsWith(key, current.prefix)) {
              if (current !== undefined) {
                returned++;
                yield current.row;
                if (returned >= limit) return;
              }
              const cell = splitCellKey(key);
              current = {
                row: { key: cell.row, cells: new Map() },
                prefix: key.subarray(0, cell.prefixLength),
              };
            }
            current.row.cells.set(key.toString("utf8", current.prefix.length), value);
          }
        }
        if (current !== undefined) {
          returned++;
          yield current.row;
        }
      } finally {
        await iterator.close();
      }
    }
  }
}

/**
 * A new (empty) directory gets the current format's marker; an unmarked directory with data was
 * written by keyspread 0.1, one entry per row, which this layout would misread.
 */
async function checkFormat(db: Level, location: string): Promise<void> {
  const format = await db.get(FORMAT_KEY);
  if (format?.toString() === FORMAT) return;
  if (format !== undefined) {
    throw new EmbeddedFormatError(
      location,
      format.toString(),
      `embedded store ${location} has format ${JSON.stringify(format.toString())}; this keyspread reads ${JSON.stringify(FORMAT)}`,
    );
  }
  const [anyKey] = await db.keys({ limit: 1 }).all();
  if (anyKey !== undefined) {
    throw new EmbeddedFormatError(
      location,
      null,
      `embedded store ${location} was written by keyspread 0.1 (one entry per row); this keyspread keeps one entry per cell and will not misread it: write its rows into a new table`,
    );
  }
  await db.put(FORMAT_KEY, Buffer.from(FORMAT));
}

function startsWith(key: Buffer, prefix: Buffer): boolean {
  return key.length >= prefix.length && key.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;
}

/** Distinct row keys from the cell keys, chunk by chunk. */
async function* rowKeysOf(keys: KeyIterator<Level, Buffer>): AsyncGenerator<Buffer[]> {
  let previous: Buffer | undefined;
  for (;;) {
    const chunk = await keys.nextv(READ_CHUNK);
    if (chunk.length === 0) return;
    const rows: Buffer[] = [];
    for (const key of chunk) {
      if (previous !== undefined && startsWith(key, previous)) continue;
      const cell = splitCellKey(key);
      previous = key.subarray(0, cell.prefixLength);
      rows.push(cell.row);
    }
    yield rows;
  }
}

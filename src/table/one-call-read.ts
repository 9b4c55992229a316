/**
 * A bounded read (no row limit: a time window, a prefix) over several bucket ranges as ONE store
 * read of all of them, where a reader per bucket would make one call each: Bigtable's ReadRows
 * takes a row set of many ranges, and a call's client CPU, not its rows, is most of what a small
 * read costs (bench:read). The rows come back in byte order, bucket after bucket; each bucket's
 * rows are handed to the merge as its own page source, so the merge into logical key order is the
 * one every read uses.
 *
 * The merge needs every bucket's first row before it can emit one, so the rows of the buckets
 * before the last are held until the stream reaches it. A window is small; a scan of the table is
 * not: past `bufferRows` held rows, or when the call fails, the call is dropped and each bucket
 * not yet read to its end goes on as its own reader (resuming just after the last key read), with
 * the per-bucket retries, partial results and read-ahead of a scatter-gather read.
 */
import type { LimitFunction } from "p-limit";
import { keySuccessor } from "../keys/bytes.js";
import type { PlannedRange } from "../keys/types.js";
import type { Store, StoreRow } from "../store/store.js";
import { isBeforeEnd } from "../store/validate.js";
import type { PageSource } from "./merge.js";

export interface OneCallReadOptions<T> {
  /** A row of range `index` as delivered, or undefined to skip it; an error thrown here ends the read. */
  convert: (row: StoreRow, index: number) => T | undefined;
  pageSize: number;
  /** Rows held for buckets the merge cannot take yet, past which each bucket is read on its own. */
  bufferRows: number;
  limiter: LimitFunction;
  signal: AbortSignal;
  appProfile?: string;
  onRowsScanned: (count: number) => void;
  /** The call failed and its buckets go on as their own readers: a retry. */
  onRetry: () => void;
  /** The reader of what is left of range `index` once the one call is dropped. */
  readerFor: (range: PlannedRange, index: number) => PageSource<T>;
}

export class OneCallRead<T> {
  /** One page source per range, in the ranges' order. */
  readonly sources: PageSource<T>[];
  /** Store reads this read made itself (0 or 1; the fallback readers count their own). */
  reads = 0;
  private iterator: AsyncIterator<StoreRow> | undefined;
  /** The range the stream is in: every range before it has been read to its end. */
  private current = 0;
  private lastKey: Buffer | undefined;
  private readonly queues: T[][];
  /** Range `i` will get no more rows from the one call (read to its end, or handed to a reader). */
  private readonly done: boolean[];
  private readonly fallbacks: (PageSource<T> | undefined)[];
  private readonly closed: boolean[];
  private held = 0;
  /** One pull from the stream at a time, whichever bucket the merge asked for. */
  private pulling: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly ranges: readonly PlannedRange[],
    private readonly options: OneCallReadOptions<T>,
  ) {
    this.queues = ranges.map(() => []);
    this.done = ranges.map(() => false);
    this.closed = ranges.map(() => false);
    this.fallbacks = ranges.map(() => undefined);
    this.sources = ranges.map((_, index) => ({
      nextPage: () => this.nextPage(index),
      close: () => this.close(index),
    }));
  }

  private async nextPage(index: number): Promise<T[] | null> {
    for (;;) {
      const queue = this.queues[index]!;
      if (queue.length > 0) {
        const page = queue.splice(0, this.options.pageSize);
        this.held -= page.length;
        return page;
      }
      const fallback = this.fallbacks[index];
      if (fallback !== undefined) return fallback.nextPage();
      if (this.done[index]) return null;
      const pull = this.pulling.then(() => this.options.limiter(() => this.pullFor(index)));
      this.pulling = pull.catch(() => {});
      await pull;
    }
  }

  /** Reads the one call until range `index` has a row, is read to its end, or the call is dropped. */
  private async pullFor(index: number): Promise<void> {
    const { signal, convert, onRowsScanned, bufferRows } = this.options;
    while (this.queues[index]!.length === 0 && !this.done[index]) {
      signal.throwIfAborted();
      if (this.iterator === undefined) {
        const appProfile = this.options.appProfile;
        this.iterator = this.store
          .read(this.ranges, { signal, ...(appProfile === undefined ? {} : { appProfile }) })
          [Symbol.asyncIterator]();
        this.reads++;
      }
      let next: IteratorResult<StoreRow>;
      try {
        next = await this.iterator.next();
      } catch (error) {
        if (signal.aborted) throw error;
        // Each bucket retries (or fails, alone) on its own reader.
        this.options.onRetry();
        this.fallBack();
        return;
      }
      if (next.done) {
        this.iterator = undefined;
        this.done.fill(true);
        return;
      }
      const row = next.value;
      onRowsScanned(1);
      while (this.current < this.ranges.length - 1 && !isBeforeEnd(row.key, this.ranges[this.current]!.end)) {
        this.done[this.current++] = true;
      }
      this.lastKey = row.key;
      const item = convert(row, this.current);
      if (item !== undefined) {
        this.queues[this.current]!.push(item);
        this.held++;
      }
      if (this.held > bufferRows && this.queues[index]!.length === 0 && !this.done[index]) this.fallBack();
    }
  }

  /** Drops the one call; each range not read to its end goes on as its own reader from where the call got. */
  private fallBack(): void {
    const iterator = this.iterator;
    this.iterator = undefined;
    iterator?.return?.().catch(() => {});
    this.ranges.forEach((range, index) => {
      if (this.done[index]) return;
      this.done[index] = true;
      if (this.closed[index]) return;
      const resumed =
        index === this.current && this.lastKey !== undefined
          ? { ...range, start: keySuccessor(this.lastKey) }
          : range;
      this.fallbacks[index] = this.options.readerFor(resumed, index);
    });
  }

  private async close(index: number): Promise<void> {
    this.closed[index] = true;
    await this.fallbacks[index]?.close();
    if (this.closed.every(Boolean)) {
      const iterator = this.iterator;
      this.iterator = undefined;
      iterator?.return?.().catch(() => {});
    }
  }
}

/**
 * Reads one planned range (one salt bucket) as pages, resuming after the last key read when a read
 * fails with a retryable error — so no row is lost or repeated. Rows the caller's `convert` turns
 * away (rows the schema cannot decode) do not count toward the limit: the read goes on past them.
 *
 * Two ways to read: one store read streams the whole range, the next page prefetched while the
 * merge consumes the current one (scans); or, with `readSize`, store reads of a given size, the
 * next one started only when the merge asks for rows (limit-bound reads: nothing is read ahead).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { LimitFunction } from "p-limit";
import { keySuccessor } from "../keys/bytes.js";
import type { PlannedRange } from "../keys/types.js";
import { RetryableStoreError, type Store, type StoreRow } from "../store/store.js";
import type { PageSource } from "./merge.js";

export interface RetryPolicy {
  /** Retries in a row without a new row in between, per bucket stream. */
  attempts: number;
  baseDelayMs: number;
}

export interface BucketReaderOptions<T> {
  /** Rows this bucket may deliver at most (the query's limit, pushed down). */
  limit: number;
  /**
   * Rows the next store read asks for, given the rows this bucket delivered so far; unset, one read
   * streams the range. A read ends the page it fills, and the next read waits for the next page.
   */
  readSize?: (delivered: number) => number;
  /** A row as delivered, or undefined to skip it; an error thrown here ends the read as is. */
  convert: (row: StoreRow) => T | undefined;
  appProfile?: string;
  pageSize: number;
  /** Shared across the buckets of one read: caps the page fetches in flight. */
  limiter: LimitFunction;
  retry: RetryPolicy;
  signal: AbortSignal;
  /** Called for every row the store returns, so reads can report rows scanned. */
  onRowsScanned: (count: number) => void;
  onRetry: () => void;
}

/** A bucket stream failed for good; names the bucket and how far it got. */
export class BucketReadError extends Error {
  override readonly name = "BucketReadError";
  constructor(
    readonly bucket: number,
    readonly rowsDelivered: number,
    override readonly cause: unknown,
  ) {
    super(
      `bucket ${bucket} failed after ${rowsDelivered} rows: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
  }
}

export class BucketReader<T> implements PageSource<T> {
  private iterator: AsyncIterator<StoreRow> | undefined;
  /** The current store read's row limit, and the rows it returned so far. */
  private iteratorLimit = Number.POSITIVE_INFINITY;
  private iteratorRows = 0;
  private lastKey: Buffer | undefined;
  private delivered = 0;
  private exhausted = false;
  /** Store reads started (retries included): the rounds of RPCs this bucket took. */
  private readsStarted = 0;
  /** The next page, already under way: the first page always (every bucket's starts at once), later ones only when streaming. */
  private upcoming: Promise<T[] | null> | undefined;

  constructor(
    private readonly store: Store,
    readonly range: PlannedRange,
    private readonly options: BucketReaderOptions<T>,
  ) {
    this.upcoming = this.fetchPage();
    // The merge awaits this later; until then a rejection must not count as unhandled.
    this.upcoming.catch(() => {});
  }

  get reads(): number {
    return this.readsStarted;
  }

  nextPage(): Promise<T[] | null> {
    const page = this.upcoming ?? this.fetchPage();
    this.upcoming = undefined;
    if (this.options.readSize === undefined) {
      this.upcoming = page.then((rows) => (rows === null ? null : this.fetchPage()));
      this.upcoming.catch(() => {});
    }
    return page;
  }

  async close(): Promise<void> {
    this.exhausted = true;
    const iterator = this.iterator;
    this.iterator = undefined;
    // Callers abort the read first; closing must not then wait on a store slow to notice.
    iterator?.return?.().catch(() => {});
  }

  private fetchPage(): Promise<T[] | null> {
    return this.options.limiter(() => this.readPage());
  }

  private async readPage(): Promise<T[] | null> {
    const { pageSize, retry, signal, convert } = this.options;
    let failures = 0;
    const page: T[] = [];
    while (page.length < pageSize && !this.exhausted) {
      signal.throwIfAborted();
      const remaining = this.options.limit - this.delivered;
      if (remaining <= 0) {
        await this.close();
        break;
      }
      let next: IteratorResult<StoreRow>;
      try {
        if (this.iterator === undefined) {
          const limit = Math.min(remaining, this.options.readSize?.(this.delivered) ?? remaining);
          this.iterator = this.store
            .read([{ start: this.resumeKey(), end: this.range.end }], {
              signal,
              ...(Number.isFinite(limit) ? { limit } : {}),
              ...(this.options.appProfile === undefined ? {} : { appProfile: this.options.appProfile }),
            })
            [Symbol.asyncIterator]();
          this.readsStarted++;
          this.iteratorLimit = limit;
          this.iteratorRows = 0;
        }
        next = await this.iterator.next();
      } catch (error) {
        this.iterator = undefined;
        if (!(error instanceof RetryableStoreError) || failures >= retry.attempts || signal.aborted) {
          throw new BucketReadError(this.range.bucket, this.delivered, error);
        }
        failures++;
        this.options.onRetry();
        // Exponential backoff with jitter, so retrying buckets do not hammer the store in step.
        await sleep(retry.baseDelayMs * 2 ** (failures - 1) * (0.5 + Math.random() / 2), undefined, {
          signal,
        });
        continue;
      }
      if (next.done) {
        this.iterator = undefined;
        // A read that stopped at its limit (maybe after skipping rows) has not reached the range's end.
        if (this.iteratorRows < this.iteratorLimit) this.exhausted = true;
        // The next read waits until the merge asks for more.
        if (page.length > 0) break;
        continue;
      }
      this.iteratorRows++;
      this.lastKey = next.value.key;
      this.options.onRowsScanned(1);
      const item = convert(next.value);
      if (item === undefined) continue;
      page.push(item);
      this.delivered++;
    }
    return page.length === 0 && this.exhausted ? null : page;
  }

  /** The first key not yet read: the range start, or just after the last key the store returned. */
  private resumeKey(): Buffer {
    return this.lastKey === undefined ? this.range.start : keySuccessor(this.lastKey);
  }
}

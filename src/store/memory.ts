/**
 * A sorted in-memory store for tests: a sorted array searched by binary search. It can inject
 * faults (failing rows, read streams that break mid-way) so the layers above can prove they lose
 * nothing.
 */
import { checkSampleCount, evenlySpaced } from "./sample.js";
import {
  type FailedMutation,
  type KeyRange,
  type Mutation,
  type ReadOptions,
  RetryableStoreError,
  type Row,
  type Store,
  type WriteResult,
} from "./store.js";
import {
  BIGTABLE_MAX_KEY_BYTES,
  checkKey,
  checkLimit,
  checkMutations,
  checkRanges,
  isBeforeEnd,
} from "./validate.js";

export interface MemoryStoreFaults {
  /**
   * Called for each mutation of a `write`; returning a reason makes that mutation fail (it is
   * not applied and is reported with this reason), `undefined` lets it through.
   */
  failWrite?: (key: Buffer, index: number) => string | undefined;
  /**
   * The next `streams` read streams (every stream when omitted) throw a RetryableStoreError
   * after yielding `afterRows` rows.
   */
  failRead?: { afterRows: number; streams?: number };
}

export interface MemoryStoreOptions {
  name?: string;
  /** Faults to inject; also settable later through `store.faults`. */
  faults?: MemoryStoreFaults;
}

export class MemoryStore implements Store {
  readonly name: string;
  /** Faults injected from now on; replace or clear at any time. */
  faults: MemoryStoreFaults;
  private readonly rows: Row[] = [];
  private closed = false;

  constructor(options: MemoryStoreOptions = {}) {
    this.name = `memory:${options.name ?? "default"}`;
    this.faults = options.faults ?? {};
  }

  /** Rows currently stored; handy in tests. */
  get size(): number {
    return this.rows.length;
  }

  async write(mutations: readonly Mutation[]): Promise<WriteResult> {
    this.checkOpen();
    checkMutations(mutations, BIGTABLE_MAX_KEY_BYTES);
    const failed: FailedMutation[] = [];
    mutations.forEach((mutation, index) => {
      const reason = this.faults.failWrite?.(mutation.key, index);
      if (reason !== undefined) {
        failed.push({ index, key: Buffer.from(mutation.key), reason });
        return;
      }
      const at = this.lowerBound(mutation.key);
      const found = at < this.rows.length && this.rows[at]!.key.equals(mutation.key);
      if (mutation.type === "delete") {
        if (found) this.rows.splice(at, 1);
        return;
      }
      const row = copyRow({ key: mutation.key, cells: mutation.cells });
      if (found) this.rows[at] = row;
      else this.rows.splice(at, 0, row);
    });
    return { failed };
  }

  async get(key: Buffer): Promise<Row | undefined> {
    this.checkOpen();
    checkKey(key, "key", BIGTABLE_MAX_KEY_BYTES);
    const at = this.lowerBound(key);
    const row = this.rows[at];
    return row?.key.equals(key) ? copyRow(row) : undefined;
  }

  read(ranges: readonly KeyRange[], options?: ReadOptions): AsyncIterable<Row> {
    this.checkOpen();
    checkRanges(ranges, BIGTABLE_MAX_KEY_BYTES);
    const limit = checkLimit(options);
    return this.stream(ranges, limit, options?.signal, this.takeReadFault());
  }

  async sampleKeys(count: number): Promise<Buffer[]> {
    this.checkOpen();
    checkSampleCount(count);
    return evenlySpaced(this.rows.length, count).map((i) => Buffer.from(this.rows[i]!.key));
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private async *stream(
    ranges: readonly KeyRange[],
    limit: number,
    signal: AbortSignal | undefined,
    failAfterRows: number | undefined,
  ): AsyncGenerator<Row> {
    let returned = 0;
    for (const range of ranges) {
      // Positions are re-found from the last key each time: writes may interleave with a read.
      let at = this.lowerBound(range.start);
      while (returned < limit) {
        signal?.throwIfAborted();
        if (returned === failAfterRows) {
          throw new RetryableStoreError(`${this.name}: injected read failure after ${returned} rows`);
        }
        const row = this.rows[at];
        if (row === undefined || !isBeforeEnd(row.key, range.end)) break;
        returned++;
        yield copyRow(row);
        this.checkOpen();
        at = this.upperBound(row.key);
      }
    }
  }

  private takeReadFault(): number | undefined {
    const fault = this.faults.failRead;
    if (fault === undefined) return undefined;
    if (fault.streams !== undefined) {
      if (fault.streams <= 0) return undefined;
      fault.streams--;
    }
    return fault.afterRows;
  }

  /** First index whose key is ≥ `key`. */
  private lowerBound(key: Buffer): number {
    return this.search(key, (cmp) => cmp < 0);
  }

  /** First index whose key is > `key`. */
  private upperBound(key: Buffer): number {
    return this.search(key, (cmp) => cmp <= 0);
  }

  private search(key: Buffer, goRight: (cmp: number) => boolean): number {
    let low = 0;
    let high = this.rows.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (goRight(Buffer.compare(this.rows[mid]!.key, key))) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private checkOpen(): void {
    if (this.closed) throw new Error(`${this.name} is closed`);
  }
}

function copyRow(row: Row): Row {
  const cells = new Map<string, Buffer>();
  for (const [qualifier, value] of row.cells) cells.set(qualifier, Buffer.from(value));
  return { key: Buffer.from(row.key), cells };
}

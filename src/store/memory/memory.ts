/**
 * A sorted in-memory store for tests: a sorted array searched by binary search. It can inject
 * faults (failing rows, read streams that break mid-way) so the layers above can prove they lose
 * nothing.
 */
import { AbstractStore, type CheckedReadOptions } from "../abstract-store.js";
import { evenlySpaced } from "../sample.js";
import {
  type CellCondition,
  type FailedMutation,
  type KeyRange,
  RetryableStoreError,
  StoreClosedError,
  type StoreMutation,
  type StoreRow,
  type StoreWriteResult,
} from "../store.js";
import { conditionHolds, isBeforeEnd } from "../validate.js";

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

export class MemoryStore extends AbstractStore {
  readonly name: string;
  /** Faults injected from now on; replace or clear at any time. */
  faults: MemoryStoreFaults;
  private readonly rows: StoreRow[] = [];
  private closed = false;

  constructor(options: MemoryStoreOptions = {}) {
    super();
    this.name = `memory:${options.name ?? "default"}`;
    this.faults = options.faults ?? {};
  }

  /** Rows currently stored; handy in tests. */
  get size(): number {
    return this.rows.length;
  }

  protected async _write(mutations: readonly StoreMutation[]): Promise<StoreWriteResult> {
    this.checkOpen();
    const failed: FailedMutation[] = [];
    mutations.forEach((mutation, index) => {
      const reason = this.faults.failWrite?.(mutation.key, index);
      if (reason !== undefined) {
        failed.push({ index, key: Buffer.from(mutation.key), reason });
        return;
      }
      const at = this.lowerBound(mutation.key);
      const found = at < this.rows.length && this.rows[at]!.key.equals(mutation.key);
      const cells = applyMutation(found ? this.rows[at]!.cells : new Map(), mutation);
      if (cells.size === 0) {
        if (found) this.rows.splice(at, 1);
      } else if (found) this.rows[at] = { key: this.rows[at]!.key, cells };
      else this.rows.splice(at, 0, { key: Buffer.from(mutation.key), cells });
    });
    return { failed };
  }

  protected async _checkAndMutate(mutation: StoreMutation, condition: CellCondition): Promise<boolean> {
    this.checkOpen();
    const at = this.lowerBound(mutation.key);
    const row = this.rows[at]?.key.equals(mutation.key) ? this.rows[at] : undefined;
    if (!conditionHolds(row?.cells, condition)) return false;
    const { failed } = await this._write([mutation]);
    if (failed.length > 0) throw new Error(`${this.name}: checkAndMutate failed: ${failed[0]!.reason}`);
    return true;
  }

  protected async _get(key: Buffer): Promise<StoreRow | undefined> {
    this.checkOpen();
    const at = this.lowerBound(key);
    const row = this.rows[at];
    return row?.key.equals(key) ? copyRow(row) : undefined;
  }

  protected _read(ranges: readonly KeyRange[], options: CheckedReadOptions): AsyncIterable<StoreRow> {
    this.checkOpen();
    return this.stream(ranges, options.limit, options.signal, this.takeReadFault());
  }

  protected async _sampleKeys(count: number): Promise<Buffer[]> {
    this.checkOpen();
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
  ): AsyncGenerator<StoreRow> {
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
    if (this.closed) throw new StoreClosedError(this.name);
  }
}

/**
 * A row's cells after a mutation, as a new map (stored rows are never changed in place): a put
 * sets its cells over the others (or replaces them all), a delete drops the named cells or all.
 */
export function applyMutation(
  cells: ReadonlyMap<string, Buffer>,
  mutation: StoreMutation,
): Map<string, Buffer> {
  if (mutation.type === "delete") {
    if (mutation.qualifiers === undefined) return new Map();
    const kept = new Map(cells);
    for (const qualifier of mutation.qualifiers) kept.delete(qualifier);
    return kept;
  }
  const next = mutation.replace ? new Map<string, Buffer>() : new Map(cells);
  for (const [qualifier, value] of mutation.cells) next.set(qualifier, Buffer.from(value));
  return next;
}

function copyRow(row: StoreRow): StoreRow {
  const cells = new Map<string, Buffer>();
  for (const [qualifier, value] of row.cells) cells.set(qualifier, Buffer.from(value));
  return { key: Buffer.from(row.key), cells };
}

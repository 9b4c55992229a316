/**
 * The one boundary between keyspread and a sorted key-value engine.
 *
 * A store moves bytes: it knows nothing of schemas, salts or buckets. Keys are compared as
 * unsigned bytes (Bigtable's order). Every implementation passes the shared behavioural suite
 * in `behaviour/suite.ts` (published as `keyspread/store/testing`).
 */
import { AllowedValueError } from "../format/allowed-value-error.js";

/** A half-open byte range `[start, end)`; `end: null` means "to the end of the table". */
export interface KeyRange {
  start: Buffer;
  end: Buffer | null;
}

/**
 * One row: its key and its cells (column qualifier → value), all bytes. On Bigtable these are
 * the newest version of each cell in the store's column family.
 */
export interface StoreRow {
  key: Buffer;
  cells: Map<string, Buffer>;
  /**
   * Each cell's version (Bigtable's timestamp, microseconds since the epoch), only when the read
   * asked for `cellTimestamps` and the store keeps versions (Bigtable); absent otherwise.
   */
  timestamps?: Map<string, number>;
}

/**
 * A table is shared with other code, so a mutation changes only what it names:
 * - `put` sets the named cells (on Bigtable a new version of each) and keeps the row's other
 *   cells; with `replace: true` the row's cells become exactly these (on Bigtable: the store's
 *   column family is cleared first; other families stay).
 * - `delete` removes the whole row, or with `qualifiers` only those cells (a row whose last cell
 *   goes is gone).
 */
export type StoreMutation =
  | {
      type: "put";
      key: Buffer;
      cells: Map<string, Buffer>;
      replace?: boolean;
      /**
       * Versions to write cells at (microseconds, as a read's `timestamps`) instead of the time of
       * the write: a copy keeps its source's versions, so a newer write wins whichever lands last.
       * Stores without versions (embedded, memory) ignore it.
       */
      timestamps?: ReadonlyMap<string, number>;
    }
  | { type: "delete"; key: Buffer; qualifiers?: readonly string[] };

/** A mutation the store could not apply, after its own retries, with the reason. */
export interface FailedMutation {
  /** Position of the mutation in the batch passed to `write`. */
  index: number;
  key: Buffer;
  reason: string;
}

/**
 * What a conditional mutation tests: the newest version of the row's cell `qualifier` (in the
 * store's column family) equals `equals` byte for byte; `equals: null` tests that the row has no
 * such cell.
 */
export interface CellCondition {
  qualifier: string;
  equals: Buffer | null;
}

export interface StoreWriteResult {
  /** Empty when every mutation was applied. Never silently shorter than the failures. */
  failed: FailedMutation[];
  /**
   * Only with `batchWriteFlowControl` on a store that has it (Bigtable): what the server said about
   * this write's pace, one signal per MutateRows response or overloaded call, in arrival order.
   */
  flowControl?: FlowControlSignal[];
}

/**
 * Bigtable's batch write flow control: a MutateRows response carries `rate_limit_info` (multiply
 * your load by `factor`, then leave it for `period`) or not (`none`); a call that failed
 * DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED or UNAVAILABLE says the cluster is `overloaded`. The store
 * reports them as received; following them is the writer's job (`migrate/write-flow-control.ts`).
 */
export type FlowControlSignal =
  | { type: "rate-limit"; factor: number; periodMs: number }
  | { type: "none" }
  | { type: "overloaded"; code: number };

/**
 * Bigtable routes each request by its app profile (e.g. single-cluster for read-your-writes
 * paths, multi-cluster for dashboards). An operation's own profile wins over the store's default;
 * stores without clusters check the name and ignore it.
 */
export interface RoutingOptions {
  appProfile?: string;
}

export interface StoreWriteOptions extends RoutingOptions {
  /**
   * Resolve only once the applied mutations survive a power loss, not just a crash of this
   * process: the embedded store syncs its log; Bigtable has made a mutation durable when it
   * acknowledges it; the memory store keeps nothing anyway.
   */
  durable?: boolean;
  /**
   * Announce batch write flow control to the server (Bigtable's `bigtable-features` request header,
   * as Google's clients send it when the feature is on) and report its signals in
   * `StoreWriteResult.flowControl`. Only for a writer that follows them; other stores ignore it.
   */
  batchWriteFlowControl?: boolean;
}

export interface StoreReadOptions extends RoutingOptions {
  /** Stop after this many rows (pushed down to the engine). */
  limit?: number;
  /** Give each row its cells' versions (`StoreRow.timestamps`), where the store keeps them. */
  cellTimestamps?: boolean;
  signal?: AbortSignal;
}

export interface Store {
  /** Human-readable name for errors and metrics, e.g. `embedded:./.keyspread/fleet`. */
  readonly name: string;
  /** Applies a batch; chunking, in-flight caps and retries are the store's job. */
  write(mutations: readonly StoreMutation[], options?: StoreWriteOptions): Promise<StoreWriteResult>;
  /**
   * Applies `mutation` only if `condition` holds, atomically with the check (Bigtable's
   * CheckAndMutateRow); resolves whether it was applied. Leases, claims and idempotency records
   * that several processes share stand on it. The store never retries it (it is not idempotent):
   * a call whose answer was lost fails with RetryableStoreError, and the caller reads the row to
   * learn whether it was applied.
   */
  checkAndMutate(
    mutation: StoreMutation,
    condition: CellCondition,
    options?: StoreWriteOptions,
  ): Promise<boolean>;
  get(key: Buffer, options?: RoutingOptions): Promise<StoreRow | undefined>;
  /**
   * Streams the rows of the given ranges in ascending byte order. Ranges must be sorted and
   * non-overlapping; `limit` applies to the whole call, as in Bigtable's ReadRows.
   */
  read(ranges: readonly KeyRange[], options?: StoreReadOptions): AsyncIterable<StoreRow>;
  /** Up to `count` keys roughly evenly spread over the table (Bigtable's SampleRowKeys). */
  sampleKeys(count: number): Promise<Buffer[]>;
  close(): Promise<void>;
}

/** An operation on a store after its `close`. */
export class StoreClosedError extends Error {
  override readonly name = "StoreClosedError";
  constructor(readonly store: string) {
    super(`${store} is closed`);
  }
}

/**
 * An argument a store refuses: the `field` at fault (`count`, `splits`, `mutations[3].timestamps`),
 * the `value` given and what is `allowed`.
 */
export class StoreArgumentError extends AllowedValueError {
  override readonly name = "StoreArgumentError";
}

/** Errors a reader may retry (resuming after the last key it saw). */
export class RetryableStoreError extends Error {
  override readonly name = "RetryableStoreError";
}

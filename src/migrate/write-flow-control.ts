/**
 * Bigtable's batch write flow control, followed the way Google's Java client follows it. The server
 * may attach `rate_limit_info {period, factor}` to a MutateRows response
 * (`google/bigtable/v2/bigtable.proto`): "multiply the current load by `factor`, then ignore
 * `factor` until another `period` has passed". A writer announces that it follows it (the
 * `bigtable-features` header; `StoreWriteOptions.batchWriteFlowControl`) and the store reports
 * each response's signal (`StoreWriteResult.flowControl`).
 *
 * The rules, from java-bigtable's RateLimitingServerStreamingCallable (ConditionalRateLimiter):
 * - a response with valid info (factor > 0, period ≥ 1 s) turns the limit on and, if its period
 *   has run out, sets rate × factor, the factor capped to [0.7, 1.3] ("the same as the server side
 *   cap") and the rate to [min, max]; the next change waits one `period`;
 * - a response without info turns the limit off once the period has run out (the rate is kept
 *   for the next time it comes on): with no signal the writer goes at its own pace again;
 * - a call that failed DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED or UNAVAILABLE sets rate × 0.7 for
 *   10 s, through the same once-per-period gate, without turning the limit on.
 * Java counts MutateRows requests of up to 100 entries (its batcher's default) and starts at
 * 10 requests/s, within [0.1, 100,000]; here the unit is rows, so those are ×100.
 *
 * API for a writer (the backfill):
 *
 *   const flow = followRateLimit(target, { maxRowsPerSecond: rate });   // rate: --rate, optional
 *   for (…each batch…) {
 *     await flow.store.write(mutations);   // announces flow control, feeds the controller
 *     await flow.pace(mutations.length);   // waits so writes keep to flow.rowsPerSecond
 *   }
 *
 * - `followRateLimit(store, options?)` → `RateLimitFollower`:
 *   - `store`: the store's methods; `write` adds `batchWriteFlowControl: true` and observes the
 *     result, the others call the store's own;
 *   - `rowsPerSecond`: the rate now in force: the server's while the limit is on, else
 *     `maxRowsPerSecond` (default 10,000,000: no pacing to speak of);
 *   - `limited`: whether the server's rate is in force (`control.limitRowsPerSecond`: that rate);
 *   - `pace(rows, signal?)`: resolves when `rows` more rows fit the rate since the last call (no
 *     credit is banked for a slow write: a stalled writer does not burst after);
 *   - `control`: the `WriteFlowControl` behind it.
 * - `new WriteFlowControl(options?)`: the pure rule above; `observe(signal)` one signal,
 *   `observeWrite(result)` a write's signals. Options: `initialRowsPerSecond` (the rate the first
 *   factor multiplies; default min(1000, max)), `minRowsPerSecond` (default 10),
 *   `maxRowsPerSecond` (default 10,000,000), `now` (a clock in ms; default `performance.now`).
 * On a store without flow control (embedded, memory, the emulator) no signal arrives: the writer
 * keeps `maxRowsPerSecond`.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { FlowControlSignal, Store, StoreWriteOptions, StoreWriteResult } from "../store/store.js";
import { MigrateOptionError } from "./migrate-option-error.js";

/** Java's factor caps (MIN_FACTOR, MAX_FACTOR). */
export const MIN_FACTOR = 0.7;
export const MAX_FACTOR = 1.3;
/** How long an overloaded call's slow-down holds before the next change (Java's DEFAULT_PERIOD). */
export const OVERLOAD_PERIOD_MS = 10_000;
/** Java's MIN_QPS 0.1, DEFAULT_QPS 10 and MAX_QPS 100,000, in requests of its 100-entry batches. */
export const DEFAULT_MIN_ROWS_PER_SECOND = 10;
export const DEFAULT_INITIAL_ROWS_PER_SECOND = 1_000;
export const DEFAULT_MAX_ROWS_PER_SECOND = 10_000_000;

export interface WriteFlowControlOptions {
  /** The rate the server's first factor multiplies. Default min(1000, maxRowsPerSecond). */
  initialRowsPerSecond?: number;
  /** The server never slows the writer below this (a job never stalls). Default 10. */
  minRowsPerSecond?: number;
  /** Never faster, limited or not (the backfill's --rate). Default 10,000,000. */
  maxRowsPerSecond?: number;
  /** Milliseconds on a monotonic clock. Default `performance.now`. */
  now?: () => number;
}

export class WriteFlowControl {
  readonly minRowsPerSecond: number;
  readonly maxRowsPerSecond: number;
  private rate: number;
  private enabled = false;
  private nextChangeAt: number;
  private readonly now: () => number;

  constructor(options: WriteFlowControlOptions = {}) {
    this.maxRowsPerSecond = options.maxRowsPerSecond ?? DEFAULT_MAX_ROWS_PER_SECOND;
    this.minRowsPerSecond =
      options.minRowsPerSecond ?? Math.min(DEFAULT_MIN_ROWS_PER_SECOND, this.maxRowsPerSecond);
    const initial =
      options.initialRowsPerSecond ?? Math.min(DEFAULT_INITIAL_ROWS_PER_SECOND, this.maxRowsPerSecond);
    for (const [name, value] of [
      ["maxRowsPerSecond", this.maxRowsPerSecond],
      ["minRowsPerSecond", this.minRowsPerSecond],
      ["initialRowsPerSecond", initial],
    ] as const) {
      if (!(Number.isFinite(value) && value > 0)) {
        throw new MigrateOptionError(name, value, "a positive finite number of rows per second");
      }
    }
    if (this.minRowsPerSecond > this.maxRowsPerSecond) {
      throw new MigrateOptionError(
        "minRowsPerSecond",
        this.minRowsPerSecond,
        `at most maxRowsPerSecond (${this.maxRowsPerSecond})`,
        `minRowsPerSecond (${this.minRowsPerSecond}) is above maxRowsPerSecond (${this.maxRowsPerSecond})`,
      );
    }
    this.now = options.now ?? (() => performance.now());
    this.rate = clamp(initial, this.minRowsPerSecond, this.maxRowsPerSecond);
    this.nextChangeAt = this.now();
  }

  /** The rate in force: the server's while it limits the writer, else the maximum. */
  get rowsPerSecond(): number {
    return this.enabled ? this.rate : this.maxRowsPerSecond;
  }

  /** The server-set rate, kept while the limit is off (used again when it comes back on). */
  get limitRowsPerSecond(): number {
    return this.rate;
  }

  /** Whether the server's rate is in force. */
  get limited(): boolean {
    return this.enabled;
  }

  observeWrite(result: StoreWriteResult): void {
    for (const signal of result.flowControl ?? []) this.observe(signal);
  }

  observe(signal: FlowControlSignal): void {
    if (signal.type === "overloaded") {
      this.trySetRate(MIN_FACTOR, OVERLOAD_PERIOD_MS);
    } else if (signal.type === "rate-limit" && signal.factor > 0 && signal.periodMs >= 1000) {
      this.enabled = true;
      this.trySetRate(signal.factor, signal.periodMs);
    } else if (this.now() > this.nextChangeAt) {
      // No (valid) info once the last change's period is over: the server no longer limits us.
      this.enabled = false;
    }
  }

  private trySetRate(factor: number, periodMs: number): void {
    const now = this.now();
    if (now < this.nextChangeAt) return;
    this.nextChangeAt = now + periodMs;
    const capped = clamp(factor, MIN_FACTOR, MAX_FACTOR);
    this.rate = clamp(this.rate * capped, this.minRowsPerSecond, this.maxRowsPerSecond);
  }
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(Math.max(value, low), high);
}

export interface RateLimitFollower {
  /** Write through this: each write announces flow control and its signals reach `control`. */
  readonly store: Store;
  readonly control: WriteFlowControl;
  readonly rowsPerSecond: number;
  readonly limited: boolean;
  /** Resolves when `rows` more rows fit `rowsPerSecond` since the previous call. */
  pace(rows: number, signal?: AbortSignal): Promise<void>;
}

export interface FollowRateLimitOptions extends WriteFlowControlOptions {
  /** Waits `ms` (tests pass one that moves their clock). Default: a timer. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Wraps `store` so its writes follow Bigtable's batch write flow control (see the top of this file). */
export function followRateLimit(store: Store, options: FollowRateLimitOptions = {}): RateLimitFollower {
  const control = new WriteFlowControl(options);
  const now = options.now ?? (() => performance.now());
  const wait = options.sleep ?? ((ms: number, signal?: AbortSignal) => sleep(ms, undefined, { signal }));
  let last = now();
  const following: Store = {
    name: store.name,
    async write(mutations, writeOptions?: StoreWriteOptions) {
      const result = await store.write(mutations, { ...writeOptions, batchWriteFlowControl: true });
      control.observeWrite(result);
      return result;
    },
    checkAndMutate: (mutation, condition, writeOptions) =>
      store.checkAndMutate(mutation, condition, writeOptions),
    get: (key, readOptions) => store.get(key, readOptions),
    read: (ranges, readOptions) => store.read(ranges, readOptions),
    sampleKeys: (count) => store.sampleKeys(count),
    close: () => store.close(),
  };
  return {
    store: following,
    control,
    get rowsPerSecond() {
      return control.rowsPerSecond;
    },
    get limited() {
      return control.limited;
    },
    async pace(rows, signal) {
      if (!(Number.isFinite(rows) && rows >= 0)) {
        throw new MigrateOptionError("rows", rows, "a finite number ≥ 0");
      }
      const due = last + (rows / control.rowsPerSecond) * 1000;
      const delay = due - now();
      if (delay > 0) await wait(delay, signal);
      last = Math.max(due, now());
    },
  };
}

/**
 * The base a store extends, in abstract-level's style: each public operation checks its arguments
 * once (validate.ts: Bigtable's rules, so all stores agree on what is valid and a bad batch is
 * rejected whole) and then calls the store's own `_operation` with arguments it can trust. A store
 * implements only its engine; a third-party store gets the checks by extending it (or implements
 * `Store` directly and must make them itself).
 */
import { checkSampleCount } from "./sample.js";
import type {
  CellCondition,
  KeyRange,
  RoutingOptions,
  Store,
  StoreMutation,
  StoreReadOptions,
  StoreRow,
  StoreWriteOptions,
  StoreWriteResult,
} from "./store.js";
import {
  BIGTABLE_MAX_KEY_BYTES,
  checkAppProfile,
  checkCondition,
  checkKey,
  checkLimit,
  checkMutations,
  checkRanges,
} from "./validate.js";

/** Routing after the checks: the operation's app profile, a valid id or none named. */
export interface CheckedRoutingOptions {
  appProfile: string | undefined;
}

/** Write options after the checks, each flag decided. */
export interface CheckedWriteOptions extends CheckedRoutingOptions {
  durable: boolean;
  batchWriteFlowControl: boolean;
}

/** Read options after the checks: `limit` is an integer ≥ 0, or Infinity when none was set. */
export interface CheckedReadOptions extends CheckedRoutingOptions {
  limit: number;
  cellTimestamps: boolean;
  signal: AbortSignal | undefined;
}

export abstract class AbstractStore implements Store {
  abstract readonly name: string;

  /** `maxKeyBytes`: the longest row key the store accepts (Bigtable's 4096 unless the engine allows less). */
  protected constructor(protected readonly maxKeyBytes: number = BIGTABLE_MAX_KEY_BYTES) {}

  async write(mutations: readonly StoreMutation[], options?: StoreWriteOptions): Promise<StoreWriteResult> {
    checkMutations(mutations, this.maxKeyBytes);
    return this._write(mutations, checkWriteOptions(options));
  }

  async checkAndMutate(
    mutation: StoreMutation,
    condition: CellCondition,
    options?: StoreWriteOptions,
  ): Promise<boolean> {
    checkMutations([mutation], this.maxKeyBytes);
    checkCondition(condition);
    return this._checkAndMutate(mutation, condition, checkWriteOptions(options));
  }

  async get(key: Buffer, options?: RoutingOptions): Promise<StoreRow | undefined> {
    checkKey(key, "key", this.maxKeyBytes);
    return this._get(key, { appProfile: checkAppProfile(options) });
  }

  /** Throws at once (not on the first row) when the arguments are bad. */
  read(ranges: readonly KeyRange[], options?: StoreReadOptions): AsyncIterable<StoreRow> {
    checkRanges(ranges, this.maxKeyBytes);
    const appProfile = checkAppProfile(options);
    const limit = checkLimit(options);
    return this._read(ranges, {
      appProfile,
      limit,
      cellTimestamps: options?.cellTimestamps === true,
      signal: options?.signal,
    });
  }

  async sampleKeys(count: number): Promise<Buffer[]> {
    checkSampleCount(count);
    return this._sampleKeys(count);
  }

  abstract close(): Promise<void>;

  protected abstract _write(
    mutations: readonly StoreMutation[],
    options: CheckedWriteOptions,
  ): Promise<StoreWriteResult>;
  protected abstract _checkAndMutate(
    mutation: StoreMutation,
    condition: CellCondition,
    options: CheckedWriteOptions,
  ): Promise<boolean>;
  protected abstract _get(key: Buffer, options: CheckedRoutingOptions): Promise<StoreRow | undefined>;
  protected abstract _read(ranges: readonly KeyRange[], options: CheckedReadOptions): AsyncIterable<StoreRow>;
  protected abstract _sampleKeys(count: number): Promise<Buffer[]>;
}

function checkWriteOptions(options: StoreWriteOptions | undefined): CheckedWriteOptions {
  return {
    appProfile: checkAppProfile(options),
    durable: options?.durable === true,
    batchWriteFlowControl: options?.batchWriteFlowControl === true,
  };
}

/**
 * What every operation file of the behaviour suite receives, the way abstract-level hands each of
 * its test files `(test, testCommon)`: a `test` that closes the stores a test opened, and the
 * common part — fresh stores, the store's options and which optional features it `supports`.
 */
import type { Store } from "../../store.js";
import { put } from "./rows.js";
import type { StoreAssertion, StoreTestApi } from "./test-api.js";

/**
 * Optional behaviour a store may lack; each defaults to on, so our stores run the whole suite and
 * a third-party store turns off what it does not do.
 */
export interface StoreSupports {
  /** A per-operation `appProfile`, checked by name even by stores without clusters. */
  appProfiles: boolean;
  /** Reads that end with the reason of their aborted `signal`. */
  abortSignals: boolean;
  /** `delete` with `qualifiers`: only the named cells go. */
  cellDeletes: boolean;
  /** `sampleKeys` returns keys of the table (not only the empty key). */
  keySamples: boolean;
}

export interface StoreBehaviourOptions {
  /** Persistent stores: closes `store` and opens the same data again. */
  reopen?: (store: Store) => Promise<Store>;
  /** Largest key the store accepts (default Bigtable's 4096); longer keys must be rejected clearly. */
  maxKeyBytes?: number;
  /** Opens a store whose writes of these keys fail, to check failures are reported by index. */
  openFailingWrites?: (failingKeys: readonly Buffer[]) => Promise<Store>;
  /** The failing store refuses every write, not just the given keys (e.g. Bigtable, unknown family). */
  failingWritesAreAll?: boolean;
  /** Rows in the large-batch test (default 25 000). */
  largeBatchRows?: number;
  /** Optional behaviour this store lacks, e.g. `{ appProfiles: false }`. */
  supports?: Partial<StoreSupports>;
}

/** Registers one test; every store it opened through `common` is closed after it. */
export type StoreTest = (title: string, body: () => Promise<void>) => void;

export interface StoreTestCommon {
  expect(actual: unknown): StoreAssertion;
  /** A new, empty store, closed after the test. */
  fresh(): Promise<Store>;
  /** A new store holding these keys (each with one cell). */
  filled(keys: readonly Buffer[]): Promise<Store>;
  /** Closes `store` with the test (for stores opened by other means than `fresh`). */
  closeAfterTest(store: Store): void;
  /** Stops closing `store` with the test (it was closed and reopened by the test). */
  keepOpen(store: Store): void;
  supports: StoreSupports;
  options: StoreBehaviourOptions;
}

export function storeTestCommon(
  api: StoreTestApi,
  open: () => Promise<Store>,
  options: StoreBehaviourOptions,
): { test: StoreTest; common: StoreTestCommon } {
  const opened: Store[] = [];
  const test: StoreTest = (title, body) =>
    api.it(title, async () => {
      try {
        await body();
      } finally {
        await Promise.all(opened.splice(0).map((store) => store.close()));
      }
    });
  const fresh = async (): Promise<Store> => {
    const store = await open();
    opened.push(store);
    return store;
  };
  const common: StoreTestCommon = {
    expect: api.expect,
    fresh,
    filled: async (keys) => {
      const store = await fresh();
      api.expect((await store.write(keys.map((key) => put(key)))).failed).toEqual([]);
      return store;
    },
    closeAfterTest: (store) => opened.push(store),
    keepOpen: (store) => opened.splice(opened.indexOf(store), 1),
    supports: {
      appProfiles: true,
      abortSignals: true,
      cellDeletes: true,
      keySamples: true,
      ...options.supports,
    },
    options,
  };
  return { test, common };
}

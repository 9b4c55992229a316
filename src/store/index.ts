/** The store implementations (the contract itself is in store.ts). */
export {
  BigtableStore,
  type BigtableStoreOptions,
  type CreateBigtableTableOptions,
  DEFAULT_BIGTABLE_FAMILY,
} from "./bigtable.js";
export { DEFAULT_EMBEDDED_DIRECTORY, EmbeddedStore, type EmbeddedStoreOptions } from "./embedded.js";
export { MemoryStore, type MemoryStoreFaults, type MemoryStoreOptions } from "./memory.js";
export { DEFAULT_MUTATE_ROWS_LIMITS, type MutateRowsLimits } from "./mutate-rows.js";
export { type OpenStoreOptions, openStore, STORE_KINDS, type StoreKind } from "./open.js";

/** `keyspread/store`: the persistent stores — embedded (LevelDB) and Cloud Bigtable — and `openStore` by kind. */
export {
  BigtableCallError,
  BigtableStore,
  type BigtableStoreOptions,
  type CreateBigtableTableOptions,
  CreateTableError,
  DEFAULT_BIGTABLE_FAMILY,
  MissingBigtableSettingError,
} from "../store/bigtable/bigtable.js";
export { DEFAULT_MUTATE_ROWS_LIMITS, type MutateRowsLimits } from "../store/bigtable/mutate-rows.js";
export {
  DEFAULT_EMBEDDED_DIRECTORY,
  EmbeddedFormatError,
  EmbeddedOpenError,
  EmbeddedStore,
  type EmbeddedStoreOptions,
  MissingEmbeddedTableError,
} from "../store/embedded/embedded.js";
export { type OpenStoreOptions, openStore, STORE_KINDS, type StoreKind } from "../store/open/open.js";

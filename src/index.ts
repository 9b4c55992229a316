/**
 * `keyspread`: the core a service imports — key schemas, the salted table client, the `Store`
 * contract with the in-memory store, and access-log recording. It loads no store driver, server,
 * simulator or renderer: those are `keyspread/store`, `keyspread/serve`, `keyspread/lab` and
 * `keyspread/migrate` (docs/architecture.md).
 */
export * from "./access-log/index.js";
export {
  MissingPackageError,
  OPTIONAL_PACKAGES,
  type OptionalPackage,
} from "./io/optional-package.js";
export * from "./keys/index.js";
export {
  AbstractStore,
  type CheckedReadOptions,
  type CheckedRoutingOptions,
  type CheckedWriteOptions,
} from "./store/abstract-store.js";
export { MemoryStore, type MemoryStoreFaults, type MemoryStoreOptions } from "./store/memory/memory.js";
export type * from "./store/store.js";
export { RetryableStoreError, StoreArgumentError, StoreClosedError } from "./store/store.js";
export {
  type AdoptOptions,
  type AdoptRefusal,
  AdoptRefusedError,
  type AdoptReport,
  adoptTable,
} from "./table/adopt.js";
export { BucketReadError, type RetryPolicy } from "./table/bucket-reader.js";
export { LatestQueryError } from "./table/latest-query.js";
export {
  type AppProfiles,
  type CellsInput,
  type PutResult,
  type PutRow,
  ReadDeadlineError,
  RowKeyError,
  SaltedTable,
  type SaltedTableOptions,
  type ShardCellMerge,
  type ShardChooser,
  ShardMergeError,
  sumInt64Cells,
  type TableDeleteOptions,
  type TableReadOptions,
  type TableReadReport,
  type TableRow,
  TableScan,
  type TableWarning,
  type TableWriteOptions,
  UndecodableRowError,
} from "./table/salted-table.js";
export { MissingSchemaRowError, SchemaMismatchError, UnadoptedTableError } from "./table/schema-guard.js";
export { bucketSplits } from "./table/splits.js";

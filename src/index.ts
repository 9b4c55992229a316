/** The library's public API. */
export * from "./access-log/index.js";
export * from "./advise/index.js";
export * from "./export/index.js";
export * from "./keys/index.js";
export * from "./migrate/index.js";
export * from "./monitor/index.js";
export * from "./serve/index.js";
export * from "./sim/index.js";
export * from "./store/index.js";
export type * from "./store/store.js";
export { RetryableStoreError } from "./store/store.js";
export { type AdoptOptions, AdoptRefusedError, type AdoptReport, adoptTable } from "./table/adopt.js";
export { BucketReadError, type RetryPolicy } from "./table/bucket-reader.js";
export {
  type AppProfiles,
  type CellsInput,
  type PutResult,
  type PutRow,
  ReadDeadlineError,
  RowKeyError,
  SaltedTable,
  type SaltedTableOptions,
  type TableDeleteOptions,
  type TableReadOptions,
  type TableReadReport,
  type TableRow,
  TableScan,
  type TableWarning,
  type TableWriteOptions,
  UndecodableRowError,
} from "./table/salted-table.js";
export { SchemaMismatchError, UnadoptedTableError } from "./table/schema-guard.js";
export { bucketSplits } from "./table/splits.js";
export * from "./viz/index.js";

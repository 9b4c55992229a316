/** The library's public API. */
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
export { BucketReadError, type RetryPolicy } from "./table/bucket-reader.js";
export {
  type CellsInput,
  type PutResult,
  type PutRow,
  ReadDeadlineError,
  type ReadReport,
  RowKeyError,
  SaltedTable,
  type SaltedTableOptions,
  type TableReadOptions,
  type TableRow,
  TableScan,
} from "./table/salted-table.js";
export { SchemaMismatchError } from "./table/schema-guard.js";
export * from "./viz/index.js";

/** Analytical export: a table's rows as day-partitioned Parquet and/or a DuckDB table. */
export {
  CELL_TYPES,
  type CellColumn,
  CellColumnError,
  type CellType,
  CellValueError,
  parseCellColumn,
} from "./columns.js";
export {
  ExportDirectoryError,
  type ExportOptions,
  type ExportResult,
  ExportRowError,
  exportTable,
  PartitionFieldError,
} from "./export-table.js";

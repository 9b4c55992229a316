/** Analytical export: a table's rows as day-partitioned Parquet and/or a DuckDB table. */
export { CELL_TYPES, type CellColumn, type CellType, parseCellColumn } from "./columns.js";
export { type ExportOptions, type ExportResult, exportTable, PartitionFieldError } from "./export-table.js";

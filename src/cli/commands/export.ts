/**
 * `keyspread export`: a table's rows (all, or a key range) as day-partitioned Parquet and/or a
 * DuckDB table, so dashboard scans run there instead of on Bigtable (the fleet incident).
 */
import type { Command } from "commander";
import { type CellColumn, parseCellColumn } from "../../export/columns.js";
import { exportTable } from "../../export/export-table.js";
import { queryFromJson } from "../../keys/json.js";
import { openStoreAt, parseStoreAddress, type StoreAddress } from "../../store/open/store-address.js";
import { argumentOf, guarded, parseJson, readSchemaFile, write } from "../shared/io.js";
import { counterBar } from "../shared/progress.js";
import { warnOnStderr } from "../shared/warnings.js";

interface ExportCliOptions {
  from: StoreAddress;
  schema: string;
  query?: string;
  parquet?: string;
  duckdb?: string;
  tableName?: string;
  cell: CellColumn[];
  partitionField?: string;
  strict?: boolean;
}

export function registerExportCommands(program: Command): void {
  program
    .command("export")
    .description("export a table or key range to Parquet partitioned by day and/or into DuckDB")
    .requiredOption(
      "--from <store>",
      "the table: embedded:DIR/TABLE, embedded:TABLE, bigtable:TABLE or bigtable:PROJECT/INSTANCE/TABLE",
      argumentOf(parseStoreAddress),
    )
    .requiredOption("--schema <file>", "the table's key schema (.json, .yaml)")
    .option(
      "--query <json>",
      'a key range, e.g. {"eq": {"tenant": "t1"}, "range": {"field": "ts", "gte": …}}',
    )
    .option("--parquet <dir>", "write Parquet here, one day=YYYY-MM-DD directory per day")
    .option("--duckdb <file>", "load into this DuckDB database file (created if missing)")
    .option("--table-name <name>", "table name in DuckDB (default: the schema's name; replaced if present)")
    .option(
      "--cell <name:type>",
      "give a cell its own typed column (DOUBLE, BIGINT, VARCHAR, BOOLEAN); repeatable; other cells go in the JSON column cells",
      (text, all: CellColumn[]) => [...all, argumentOf(parseCellColumn)(text)],
      [],
    )
    .option(
      "--partition-field <field>",
      "timestamp field giving the day (default: the schema's first timestamp)",
    )
    .option("--strict", "fail on a row in the range the schema cannot decode (default: skip it and warn)")
    .action(guarded(runExportCommand));
}

async function runExportCommand(options: ExportCliOptions): Promise<void> {
  if (!options.parquet && !options.duckdb)
    throw new Error("export: give --parquet DIR, --duckdb FILE, or both");
  const schema = await readSchemaFile(options.schema);
  const query = options.query === undefined ? undefined : queryFromJson(schema, parseJson(options.query));
  if (query?.limit !== undefined)
    throw new Error("export: --query takes no limit; it exports the whole range");
  const store = await openStoreAt(options.from, { mustExist: true });
  const bar = counterBar("export");
  try {
    const result = await exportTable({
      store,
      schema,
      ...(query ? { query } : {}),
      ...(options.parquet ? { parquetDir: options.parquet } : {}),
      ...(options.duckdb ? { duckdbFile: options.duckdb } : {}),
      ...(options.tableName ? { tableName: options.tableName } : {}),
      ...(options.partitionField ? { partitionField: options.partitionField } : {}),
      cellColumns: options.cell,
      strict: options.strict === true,
      onWarning: warnOnStderr,
      onProgress: bar.update,
    });
    bar.stop();
    await write(`${JSON.stringify(result)}\n`);
  } finally {
    bar.stop();
    await store.close();
  }
}

/**
 * The fleet incident's fix for 40-second dashboard scans: move them off Bigtable. A key range (or the whole
 * table) is read once, decoded, and written as Parquet partitioned by day — the key fields as
 * typed columns — and/or loaded into a DuckDB database, where range scans are columnar.
 */
import { mkdir, readdir } from "node:fs/promises";
import { importOptionalPackage } from "../io/optional-package.js";
import type { KeySchema, Query } from "../keys/types.js";
import type { Store } from "../store/store.js";
import { emitTableWarning, RowDecoder, type TableWarning } from "../table/row-decoder.js";
import { clipToData, guardRecordedSchema } from "../table/schema-guard.js";
import { type CellColumn, columnsFor, quoteIdentifier, stagingRow } from "./columns.js";

export interface ExportOptions {
  store: Store;
  schema: KeySchema;
  /** The key range to export (`eq` on leading fields, a range on the next); default the whole table. */
  query?: Omit<Query, "limit">;
  /** Write Parquet files here, one `day=YYYY-MM-DD` directory per day. */
  parquetDir?: string;
  /** Load into this DuckDB database file (created if missing), table `tableName`. */
  duckdbFile?: string;
  /** Table name in DuckDB; default the schema's name. Replaced if it exists. */
  tableName?: string;
  /** Cells to give typed columns; the other cells go in the JSON column `cells`. */
  cellColumns?: CellColumn[];
  /** Timestamp field the `day` partition comes from; default the schema's first timestamp field. */
  partitionField?: string;
  /** Fail on a row in the range the schema cannot decode (default: skip it, count it, warn). */
  strict?: boolean;
  /** Where the warning about skipped rows goes (default: process.emitWarning). */
  onWarning?: (warning: TableWarning) => void;
  onProgress?: (rows: number) => void;
}

export interface ExportResult {
  rows: number;
  /** Rows in the range the schema could not decode, skipped and not exported. */
  rowsUndecodable: number;
  /** The partition field, or null when the schema has no timestamp (then one unpartitioned file). */
  partitionedBy: string | null;
  days: number;
  parquetDir: string | null;
  duckdb: { file: string; table: string } | null;
  seconds: number;
}

const FLUSH_ROWS = 100_000;

export async function exportTable(options: ExportOptions): Promise<ExportResult> {
  const started = performance.now();
  const { schema, store } = options;
  if (!options.parquetDir && !options.duckdbFile)
    throw new Error("export needs a Parquet directory, a DuckDB file, or both");
  if (options.parquetDir && (await readdir(options.parquetDir).catch(() => [])).length > 0) {
    // Partitions left from an earlier export would be read back as part of this one.
    throw new ExportDirectoryError(options.parquetDir);
  }
  const cellColumns = options.cellColumns ?? [];
  const columns = columnsFor(schema, cellColumns);
  const partitionField = partitionFieldOf(schema, options.partitionField);
  const table = quoteIdentifier(options.tableName ?? schema.spec.name);

  // Loaded on use: the native engine adds ~0.1 s to every process that imports it.
  const { DuckDBDataChunkWriter, DuckDBInstance, JSToDuckDBValueConverter } = await importOptionalPackage(
    "@duckdb/node-api",
    () => import("@duckdb/node-api"),
  );
  // A wrong schema would decode nothing and export an empty table without a word.
  await guardRecordedSchema(store, schema);
  const instance = await DuckDBInstance.create(options.duckdbFile ?? ":memory:");
  const connection = await instance.connect();
  try {
    await connection.run(
      `CREATE OR REPLACE TEMP TABLE staging (${columns.map((c) => `${quoteIdentifier(c.name)} ${c.stagingType}`).join(", ")})`,
    );
    const appender = await connection.createAppender("staging");
    const writer = DuckDBDataChunkWriter.forAppender(appender, { converter: JSToDuckDBValueConverter });
    let rows = 0;
    const ranges = schema.plan(options.query ?? {}).ranges.flatMap((range) => clipToData(range) ?? []);
    const decoder = new RowDecoder(schema, store.name, options.strict ?? false);
    for await (const row of store.read(ranges)) {
      const decoded = decoder.decode(row);
      if (decoded === undefined) continue;
      try {
        writer.appendRow(stagingRow(schema, cellColumns, decoded.values, row.cells));
      } catch (error) {
        throw new ExportRowError(row.key.toString("hex"), error);
      }
      if (++rows % FLUSH_ROWS === 0) {
        writer.flush();
        options.onProgress?.(rows);
      }
    }
    writer.flush();
    appender.closeSync();
    options.onProgress?.(rows);
    const warning = decoder.warning();
    if (warning) (options.onWarning ?? emitTableWarning)(warning);

    const day = partitionField ? `, CAST(${quoteIdentifier(partitionField)} AS DATE) AS "day"` : "";
    await connection.run(
      `CREATE OR REPLACE TABLE ${table} AS SELECT *${day} FROM (SELECT ${columns.map((c) => c.finalSql).join(", ")} FROM staging)`,
    );
    await connection.run("DROP TABLE staging");
    let days = 0;
    if (partitionField) {
      const reader = await connection.runAndReadAll(`SELECT count(DISTINCT "day") FROM ${table}`);
      days = Number(reader.getRows()[0]![0]);
    }
    if (options.parquetDir) {
      await mkdir(options.parquetDir, { recursive: true });
      const target = partitionField ? options.parquetDir : `${options.parquetDir}/data.parquet`;
      const partition = partitionField ? `, PARTITION_BY ("day"), OVERWRITE_OR_IGNORE` : "";
      await connection.run(
        `COPY ${table} TO ${sqlString(target)} (FORMAT parquet, COMPRESSION zstd${partition})`,
      );
    }
    if (!options.duckdbFile) await connection.run(`DROP TABLE ${table}`);
    return {
      rows,
      rowsUndecodable: decoder.count,
      partitionedBy: partitionField ?? null,
      days,
      parquetDir: options.parquetDir ?? null,
      duckdb: options.duckdbFile
        ? { file: options.duckdbFile, table: options.tableName ?? schema.spec.name }
        : null,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** A Parquet directory that already holds files (old partitions would be read back with the new). */
export class ExportDirectoryError extends Error {
  override readonly name = "ExportDirectoryError";
  readonly allowed = "a new or empty directory";
  constructor(readonly directory: string) {
    super(`Parquet directory ${directory} is not empty; export into a new or empty directory`);
  }
}

/** A row that could not be exported: its key (hex); the cause says why (a {@link CellValueError}…). */
export class ExportRowError extends Error {
  override readonly name = "ExportRowError";
  constructor(
    readonly key: string,
    cause: unknown,
  ) {
    super(`row ${key}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** A partition field that is not one of the schema's timestamp fields (`allowed`). */
export class PartitionFieldError extends Error {
  override readonly name = "PartitionFieldError";
  constructor(
    readonly field: string,
    readonly schema: string,
    readonly allowed: readonly string[],
  ) {
    super(
      `partition field "${field}" is not a timestamp field of "${schema}"; allowed: ${allowed.join(", ") || "(none)"}`,
    );
  }
}

function partitionFieldOf(schema: KeySchema, requested: string | undefined): string | undefined {
  if (requested === undefined) return schema.fields.find((f) => f.codec.type === "timestamp")?.name;
  const field = schema.fields.find((f) => f.name === requested);
  if (field?.codec.type !== "timestamp") {
    const timestamps = schema.fields.filter((f) => f.codec.type === "timestamp").map((f) => f.name);
    throw new PartitionFieldError(requested, schema.spec.name, timestamps);
  }
  return requested;
}

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * BigQuery's external table over the live Bigtable table, as Google's "Query and analyze
 * Bigtable data with BigQuery" recommends it: a Data Boost app profile, so the scans run on
 * serverless compute billed apart and never take CPU from the cluster serving the application
 * (cost-effective for ad hoc queries), and `readRowkeyAsString` with
 * `ignoreUnspecifiedColumnFamilies` set to true. The table must live in the Bigtable table's
 * region. Lifted cells are typed columns read from their text (keyspread writes cells as text).
 */
import type { CellType } from "../export/columns.js";
import { bigQuery } from "./bigquery-dialect.js";
import type { RowSource } from "./decode-query.js";
import type { DecodingPlan } from "./plan.js";

export interface BigtableTableRef {
  project: string;
  instance: string;
  table: string;
  /** The column family keyspread's cells live in (the store's family). */
  family: string;
}

/** BigQuery's type for a cell's text (`type` with `encoding: TEXT`). */
const EXTERNAL_TYPE: Record<CellType, string> = {
  DOUBLE: "FLOAT",
  BIGINT: "INTEGER",
  VARCHAR: "STRING",
  BOOLEAN: "BOOLEAN",
};

/** The definition `bq mk --external_table_definition` reads (ExternalDataConfiguration). */
export function externalTableDefinition(
  plan: DecodingPlan,
  ref: BigtableTableRef,
  appProfile: string,
): Record<string, unknown> {
  return {
    sourceFormat: "BIGTABLE",
    sourceUris: [sourceUri(ref, appProfile)],
    bigtableOptions: {
      // Text keys read as STRING; binary keys stay BYTES (not every key is valid UTF-8).
      readRowkeyAsString: plan.rowKey === "string",
      ignoreUnspecifiedColumnFamilies: true,
      columnFamilies: [
        {
          familyId: ref.family,
          columns: plan.cells.map((cell) => ({
            qualifierString: cell.name,
            fieldName: cell.name,
            type: EXTERNAL_TYPE[cell.type],
            encoding: "TEXT",
          })),
        },
      ],
    },
  };
}

/** The source URI naming the app profile the reads go through. */
export function sourceUri(ref: BigtableTableRef, appProfile: string): string {
  return `https://googleapis.com/bigtable/projects/${ref.project}/instances/${ref.instance}/appProfiles/${appProfile}/tables/${ref.table}`;
}

/** The same table as GoogleSQL DDL. */
export function externalTableDdl(
  plan: DecodingPlan,
  ref: BigtableTableRef,
  appProfile: string,
  tablePath: string,
): string {
  const definition = externalTableDefinition(plan, ref, appProfile);
  return [
    `CREATE OR REPLACE EXTERNAL TABLE ${tablePath}`,
    "OPTIONS (",
    "  format = 'CLOUD_BIGTABLE',",
    `  uris = [${JSON.stringify(sourceUri(ref, appProfile))}],`,
    `  bigtable_options = """${JSON.stringify(definition.bigtableOptions)}"""`,
    ");",
  ].join("\n");
}

/** The external table as the view's source: a cell is its newest version's typed value. */
export function externalTableSource(tablePath: string, family: string): RowSource {
  return {
    from: tablePath,
    rowKey: "rowkey",
    cell: (name) =>
      `(SELECT c.value FROM UNNEST(${bigQuery.id(family)}.${bigQuery.id(name)}.cell) AS c ORDER BY c.timestamp DESC LIMIT 1)`,
  };
}

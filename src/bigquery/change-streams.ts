/**
 * Google's "Bigtable change streams to BigQuery" Dataflow template: every change to the table
 * streams into a BigQuery changelog table (one row per changed cell: row_key, mod_type,
 * column_family, column, commit_timestamp, timestamp, value). Its parameters for this table, and
 * the decoding view over the changelog. The app profile must route to a single cluster
 * (ReadChangeStream requires single-cluster routing, the data API's reference).
 */
import type { CellType } from "../export/columns.js";
import type { RowSource } from "./decode-query.js";
import type { BigtableTableRef } from "./external-table.js";
import type { DecodingPlan } from "./plan.js";

export const CHANGE_STREAMS_TEMPLATE = "Bigtable_Change_Streams_to_BigQuery";

export function changeStreamsParameters(
  plan: DecodingPlan,
  ref: BigtableTableRef,
  dataset: string,
  appProfile: string,
): Record<string, string> {
  return {
    bigtableReadProjectId: ref.project,
    bigtableReadInstanceId: ref.instance,
    bigtableReadTableId: ref.table,
    bigtableChangeStreamAppProfile: appProfile,
    bigQueryDataset: dataset,
    bigQueryChangelogTableName: changelogTable(ref),
    // Dashboards read days: a day-partitioned changelog lets a date filter prune the rest.
    bigQueryChangelogTablePartitionGranularity: "DAY",
    // Binary keys are not valid UTF-8 text; keyspread's cells are text.
    writeRowkeyAsBytes: String(plan.rowKey === "bytes"),
    writeValuesAsBytes: "false",
  };
}

export function changelogTable(ref: BigtableTableRef): string {
  return `${ref.table}_changelog`;
}

const BIGQUERY_TYPE: Record<CellType, string> = {
  DOUBLE: "FLOAT64",
  BIGINT: "INT64",
  VARCHAR: "STRING",
  BOOLEAN: "BOOL",
};

/** The changelog as the view's source: each change record keeps its own columns. */
export function changelogSource(tablePath: string, family: string): RowSource {
  return {
    from: tablePath,
    rowKey: "row_key",
    cell: (name, type) =>
      `SAFE_CAST(IF(column_family = ${JSON.stringify(family)} AND \`column\` = ${JSON.stringify(name)}, value, NULL) AS ${BIGQUERY_TYPE[type as CellType]})`,
    // Renamed where a lifted cell could take the name (a cell called "value").
    keep: [
      "mod_type",
      "column_family",
      "`column` AS change_column",
      "value AS change_value",
      "commit_timestamp",
      "`timestamp` AS cell_timestamp",
      "is_gc",
    ],
  };
}

/** The flex template launch, for docs and the command's notes. */
export function changeStreamsCommand(parameters: Record<string, string>, region: string): string {
  const list = Object.entries(parameters)
    .map(([key, value]) => `${key}=${value}`)
    .join(",");
  // Job names take lowercase letters, digits and hyphens.
  const job = `${parameters.bigtableReadTableId}-changelog`.toLowerCase().replaceAll(/[^a-z0-9-]/g, "-");
  return `gcloud dataflow flex-template run ${job} --region=${region} --template-file-gcs-location=gs://dataflow-templates-${region}/latest/flex/${CHANGE_STREAMS_TEMPLATE} --parameters=${list}`;
}

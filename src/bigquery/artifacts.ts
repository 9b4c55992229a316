/**
 * Everything `keyspread bigquery` writes for one table and its key schema: the external table
 * over the live Bigtable table, the decoding view over it, the entity reader, the change-streams
 * template's parameters and the same view over its changelog, Bigtable's row key schema (or why
 * it does not fit), and the DuckDB printing of the same plan for trying it locally.
 */
import type { CellColumn } from "../export/columns.js";
import type { KeySchema } from "../keys/types.js";
import { bigQuery } from "./bigquery-dialect.js";
import {
  CHANGE_STREAMS_TEMPLATE,
  changelogSource,
  changelogTable,
  changeStreamsCommand,
  changeStreamsParameters,
} from "./change-streams.js";
import { decodeQuery, type RowSource } from "./decode-query.js";
import { duckDb } from "./duckdb-dialect.js";
import { entityReader, type Refusal } from "./entity-reader.js";
import {
  type BigtableTableRef,
  externalTableDdl,
  externalTableDefinition,
  externalTableSource,
} from "./external-table.js";
import { decodingPlan } from "./plan.js";
import { rowKeySchemaFor, rowKeySchemaGcloud, rowKeySchemaJson } from "./row-key-schema.js";

export interface BigQueryArtifactOptions {
  table: BigtableTableRef;
  /** BigQuery dataset, `dataset` or `project.dataset`, in the Bigtable table's region. */
  dataset: string;
  /** The Data Boost app profile the external table reads through. */
  appProfile?: string;
  /** The single-cluster app profile the change-streams pipeline reads through. */
  changeStreamAppProfile?: string;
  /** The Dataflow region of the change-streams job. */
  region?: string;
  cells?: CellColumn[];
  dayField?: string;
}

/** The refusals as printed: file → why, in words. */
export function refusalMessages(refused: Record<string, Refusal>): Record<string, string> {
  return Object.fromEntries(Object.entries(refused).map(([file, why]) => [file, why.message]));
}

export interface BigQueryArtifacts {
  /** File name → content. */
  files: Record<string, string>;
  /** Parts not written, each with why. */
  refused: Record<string, Refusal>;
  /** What a reader of the row key schema or the views should know. */
  notes: string[];
  /** The commands that put the files to use, in order. */
  commands: string[];
}

export const DEFAULT_DATA_BOOST_PROFILE = "keyspread-data-boost";
export const DEFAULT_CHANGE_STREAM_PROFILE = "keyspread-change-stream";

export function bigQueryArtifacts(schema: KeySchema, options: BigQueryArtifactOptions): BigQueryArtifacts {
  const plan = decodingPlan(schema, {
    ...(options.cells ? { cells: options.cells } : {}),
    ...(options.dayField ? { dayField: options.dayField } : {}),
  });
  const ref = options.table;
  const appProfile = options.appProfile ?? DEFAULT_DATA_BOOST_PROFILE;
  const changeProfile = options.changeStreamAppProfile ?? DEFAULT_CHANGE_STREAM_PROFILE;
  const region = options.region ?? "us-central1";
  const path = (name: string) => bigQuery.id(`${options.dataset}.${name}`);
  const external = path(`${ref.table}_bigtable`);
  const files: Record<string, string> = {};
  const refused: Record<string, Refusal> = {};
  const notes: string[] = [];

  files["external-table.json"] = json(externalTableDefinition(plan, ref, appProfile));
  files["external-table.sql"] = `${externalTableDdl(plan, ref, appProfile, external)}\n`;
  const source = externalTableSource(external, ref.family);
  files["view.sql"] = view(path(`${ref.table}_decoded`), decodeQuery(plan, bigQuery, source));

  const reader = entityReader(schema, plan, bigQuery, source, path(`${ref.table}_entity`));
  if ("refused" in reader) refused["entity.sql"] = reader.refused;
  else {
    files["entity.sql"] = `${reader.sql};\n`;
    const salt = schema.spec.salt;
    if (reader.salt === "every-bucket" && salt) {
      notes.push(
        `entity reader: salt hash "${salt.hash}" has no SQL function (BigQuery has no xxHash32), so it reads the entity's prefix in each of the ${schema.bucketCount} buckets`,
      );
    }
  }

  const parameters = changeStreamsParameters(plan, ref, options.dataset, changeProfile);
  files["change-streams.json"] = json({
    template: `gs://dataflow-templates-${region}/latest/flex/${CHANGE_STREAMS_TEMPLATE}`,
    parameters,
  });
  const changelog = changelogSource(path(changelogTable(ref)), ref.family);
  files["changelog-view.sql"] = view(
    path(`${changelogTable(ref)}_decoded`),
    decodeQuery(plan, bigQuery, changelog),
  );

  const fit = rowKeySchemaFor(schema, ref.family);
  if (fit.fits) {
    files["row-key-schema.json"] = json(rowKeySchemaJson(fit.struct));
    files["row-key-schema.gcloud.json"] = json(rowKeySchemaGcloud(fit.struct));
    notes.push(...fit.notes.map((note) => `row key schema: ${note}`));
  } else
    refused["row-key-schema.json"] = {
      problems: fit.reasons.map((reason) => reason.problem),
      message: fit.reasons.map((reason) => reason.message).join("; "),
    };

  files["duckdb.sql"] = duckDbFile(schema, plan);

  const commands = [
    `gcloud bigtable app-profiles create ${appProfile} --instance=${ref.instance} --data-boost --data-boost-compute-billing-owner=HOST_PAYS --description="BigQuery reads (keyspread)"`,
    `bq query --use_legacy_sql=false < external-table.sql`,
    `bq query --use_legacy_sql=false < view.sql`,
    ...(files["entity.sql"] ? [`bq query --use_legacy_sql=false < entity.sql`] : []),
    `gcloud bigtable instances tables update ${ref.table} --instance=${ref.instance} --change-stream-retention-period=7d`,
    `gcloud bigtable app-profiles create ${changeProfile} --instance=${ref.instance} --route-to=CLUSTER_ID --transactional-writes=false`,
    changeStreamsCommand(parameters, region),
    `bq query --use_legacy_sql=false < changelog-view.sql`,
  ];
  return { files, refused, notes, commands };
}

function view(name: string, query: string): string {
  return `CREATE OR REPLACE VIEW ${name} AS\n${query};\n`;
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** The same plan for DuckDB, over a table `rows` (rowkey, then the cells as text). */
function duckDbFile(schema: KeySchema, plan: ReturnType<typeof decodingPlan>): string {
  const source: RowSource = {
    from: "rows",
    rowKey: "rowkey",
    cell: (name, type) => `TRY_CAST(${duckDb.id(name)} AS ${type})`,
  };
  const reader = entityReader(schema, plan, duckDb, source, duckDb.id(`${schema.spec.name}_entity`));
  return [
    `-- The decoding view for DuckDB over a table rows(rowkey ${plan.rowKey === "string" ? "VARCHAR" : "BLOB"}${plan.cells.map((c) => `, ${c.name} VARCHAR`).join("")}).`,
    view(duckDb.id(`${schema.spec.name}_decoded`), decodeQuery(plan, duckDb, source)),
    ...("refused" in reader ? [] : [`${reader.sql};\n`]),
  ].join("\n");
}

/** BigQuery over Bigtable with the keys decoded: the plan, its two printers, and the files around them. */
export {
  type BigQueryArtifactOptions,
  type BigQueryArtifacts,
  bigQueryArtifacts,
} from "./artifacts.js";
export { bigQuery } from "./bigquery-dialect.js";
export { decodeQuery, type RowSource } from "./decode-query.js";
export type { SqlDialect } from "./dialect.js";
export { duckDb } from "./duckdb-dialect.js";
export { type EntityReader, entityReader } from "./entity-reader.js";
export type { BigtableTableRef } from "./external-table.js";
export { type DecodingPlan, decodingPlan, SqlDecodeError } from "./plan.js";
export { type RowKeySchemaFit, rowKeySchemaFor } from "./row-key-schema.js";

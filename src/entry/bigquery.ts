/** `keyspread/bigquery`: BigQuery views that decode a key schema's row keys, the external table and change streams around them, Bigtable's row key schema. */
export * from "../bigquery/index.js";

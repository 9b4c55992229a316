/**
 * GoogleSQL for BigQuery. Each function used, with its reference page
 * (https://cloud.google.com/bigquery/docs/reference/standard-sql/…):
 * - string_functions: SPLIT, REGEXP_CONTAINS, REGEXP_EXTRACT, REGEXP_REPLACE, TO_HEX, FROM_HEX,
 *   TRANSLATE, SUBSTR, CONCAT, LPAD, CODE_POINTS_TO_STRING, REPLACE, STARTS_WITH
 * - conversion_functions: CAST (a STRING "0x…" casts to INT64 as hexadecimal; BYTES to STRING
 *   fails on invalid UTF-8), SAFE_CAST (NULL instead of the error)
 * - timestamp_functions: TIMESTAMP_SECONDS, TIMESTAMP_MILLIS, TIMESTAMP_MICROS, with the
 *   functions-reference SAFE. prefix (NULL beyond 9999-12-31 instead of an error)
 * - date_functions: DATE; array_functions: ARRAY_REVERSE, ARRAY_TO_STRING; OFFSET/SAFE_OFFSET
 *   (operators); aggregate_functions: STRING_AGG; hash_functions: MD5;
 *   mathematical_functions: MOD; query-syntax: UNNEST … WITH OFFSET
 * Every conversion is SAFE_: BigQuery may evaluate a column before the WHERE that keeps only keys of
 * the schema's shape, and a row that is left out must not fail the query.
 * docs/migrate.md lists them with what each does here.
 */
import type { TimeUnit } from "../keys/types.js";
import type { SqlDialect } from "./dialect.js";

const TIMESTAMP_FUNCTION: Record<TimeUnit, string> = {
  s: "TIMESTAMP_SECONDS",
  ms: "TIMESTAMP_MILLIS",
  us: "TIMESTAMP_MICROS",
};

export const bigQuery: SqlDialect = {
  name: "bigquery",
  id: (name) => `\`${name.replaceAll("`", "\\`")}\``,
  // JSON's escapes (\\ \" \n \uXXXX…) are all GoogleSQL string escapes.
  str: (text) => JSON.stringify(text),
  regex: (pattern) => `r'${pattern}'`,
  matches: (expr, pattern) => `REGEXP_CONTAINS(${expr}, r'${pattern}')`,
  capture: (expr, pattern) => `REGEXP_EXTRACT(${expr}, r'${pattern}')`,
  replaceAll: (expr, pattern, replacement) => `REGEXP_REPLACE(${expr}, r'${pattern}', r'${replacement}')`,
  hex: (expr) => `TO_HEX(${expr})`,
  split: (expr, separator) => `SPLIT(${expr}, ${JSON.stringify(separator)})`,
  at: (list, index) => `${list}[OFFSET(${index})]`,
  translate: (expr, from, to) => `TRANSLATE(${expr}, '${from}', '${to}')`,
  digitsToInt: (expr) => `SAFE_CAST(${expr} AS INT64)`,
  digitsToBig: (expr) => `SAFE_CAST(${expr} AS NUMERIC)`,
  digitsToOffsetInt64: (expr) => `SAFE_CAST(SAFE_CAST(${expr} AS NUMERIC) - 9223372036854775808 AS INT64)`,
  hexToInt: (expr) => `SAFE_CAST(CONCAT('0x', ${expr}) AS INT64)`,
  hex64ToUnsigned: (expr) =>
    `(CAST(SAFE_CAST(CONCAT('0x', SUBSTR(${expr}, 1, 8)) AS INT64) AS NUMERIC) * 4294967296 + SAFE_CAST(CONCAT('0x', SUBSTR(${expr}, 9, 8)) AS INT64))`,
  hex64ToIntOrNull: (expr) => `SAFE_CAST(CONCAT('0x', ${expr}) AS INT64)`,
  timestamp: (expr, unit) => `SAFE.${TIMESTAMP_FUNCTION[unit]}(${expr})`,
  date: (expr) => `DATE(${expr})`,
  unescape: (expr, escapeChar) =>
    `(SELECT STRING_AGG(IF(o = 0, s, CONCAT(CODE_POINTS_TO_STRING([SAFE_CAST(CONCAT('0x', SUBSTR(s, 1, 2)) AS INT64)]), SUBSTR(s, 3))), '' ORDER BY o) FROM UNNEST(SPLIT(${expr}, ${JSON.stringify(escapeChar)})) AS s WITH OFFSET o)`,
  hexToText: (expr) => `SAFE_CAST(FROM_HEX(${expr}) AS STRING)`,
  reverseLabels: (expr) => `ARRAY_TO_STRING(ARRAY_REVERSE(SPLIT(${expr}, '.')), '.')`,
  pick: (values, index) => `[${values.map((v) => JSON.stringify(v)).join(", ")}][SAFE_OFFSET(${index})]`,
  concat: (parts) => (parts.length === 1 ? parts[0]! : `CONCAT(${parts.join(", ")})`),
  padDigits: (expr, width) => `LPAD(CAST(${expr} AS STRING), ${width}, '0')`,
  char: (code) => `CODE_POINTS_TO_STRING([${code}])`,
  md5Hex4Bucket: (expr, buckets) =>
    `MOD(CAST(CONCAT('0x', SUBSTR(TO_HEX(MD5(${expr})), 1, 4)) AS INT64), ${buckets})`,
};

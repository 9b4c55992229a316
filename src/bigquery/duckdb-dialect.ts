/**
 * DuckDB SQL: the dialect the property tests run, key for key, against keyspread's own decoder.
 * `try(…)` and TRY_CAST turn a failed conversion into NULL, as BigQuery's SAFE. prefix does: the
 * engine may evaluate a column before the WHERE that keeps only keys of the schema's shape.
 */
import type { TimeUnit } from "../keys/types.js";
import type { SqlDialect } from "./dialect.js";

const MICROS: Record<TimeUnit, string> = { s: " * 1000000", ms: " * 1000", us: "" };
const sqlString = (text: string) => `'${text.replaceAll("'", "''")}'`;

export const duckDb: SqlDialect = {
  name: "duckdb",
  id: (name) => `"${name.replaceAll('"', '""')}"`,
  str: sqlString,
  regex: sqlString,
  matches: (expr, pattern) => `regexp_full_match(${expr}, ${sqlString(pattern)})`,
  capture: (expr, pattern) => `regexp_extract(${expr}, ${sqlString(pattern)}, 1)`,
  replaceAll: (expr, pattern, replacement) =>
    `regexp_replace(${expr}, ${sqlString(pattern)}, ${sqlString(replacement)}, 'g')`,
  hex: (expr) => `lower(hex(${expr}))`,
  split: (expr, separator) => `string_split(${expr}, ${sqlString(separator)})`,
  at: (list, index) => `${list}[${index + 1}]`,
  translate: (expr, from, to) => `translate(${expr}, '${from}', '${to}')`,
  digitsToInt: (expr) => `TRY_CAST(${expr} AS BIGINT)`,
  digitsToBig: (expr) => `TRY_CAST(${expr} AS HUGEINT)`,
  digitsToOffsetInt64: (expr) => `TRY_CAST(TRY_CAST(${expr} AS HUGEINT) - 9223372036854775808 AS BIGINT)`,
  hexToInt: (expr) => `TRY_CAST('0x' || ${expr} AS BIGINT)`,
  hex64ToUnsigned: (expr) => `TRY_CAST('0x' || ${expr} AS UBIGINT)`,
  hex64ToIntOrNull: (expr) => `TRY_CAST('0x' || ${expr} AS BIGINT)`,
  timestamp: (expr, unit) => `try(make_timestamp(${expr}${MICROS[unit]}))`,
  date: (expr) => `CAST(${expr} AS DATE)`,
  unescape: (expr, escapeChar) =>
    `list_reduce(list_transform(string_split(${expr}, ${sqlString(escapeChar)}), (s, i) -> CASE WHEN i = 1 THEN s ELSE chr(TRY_CAST('0x' || substr(s, 1, 2) AS INTEGER)) || substr(s, 3) END), (a, b) -> a || b)`,
  hexToText: (expr) => `try(decode(unhex(${expr})))`,
  reverseLabels: (expr) => `array_to_string(list_reverse(string_split(${expr}, '.')), '.')`,
  pick: (values, index) => `[${values.map(sqlString).join(", ")}][${index} + 1]`,
  concat: (parts) => parts.join(" || "),
  padDigits: (expr, width) => `lpad(CAST(${expr} AS VARCHAR), ${width}, '0')`,
  char: (code) => `chr(${code})`,
  md5Hex4Bucket: (expr, buckets) => `(CAST('0x' || substr(md5(${expr}), 1, 4) AS INTEGER) % ${buckets})`,
};

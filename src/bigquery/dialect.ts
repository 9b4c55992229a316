/**
 * What a SQL engine must spell for the decoding plan: one printer per engine implements it, and
 * the view (`decode-query.ts`) and the entity reader are written once over it.
 */
import type { TimeUnit } from "../keys/types.js";

export interface SqlDialect {
  readonly name: "bigquery" | "duckdb";
  /** A quoted identifier (a column, a table path). */
  id(name: string): string;
  /** A string literal. */
  str(text: string): string;
  /** A regular-expression literal (RE2 in both engines). */
  regex(pattern: string): string;
  matches(expr: string, pattern: string): string;
  /** The text of the pattern's one capture group, NULL when it does not match. */
  capture(expr: string, pattern: string): string;
  replaceAll(expr: string, pattern: string, replacement: string): string;
  /** The row key's bytes as lowercase hex. */
  hex(bytesExpr: string): string;
  split(expr: string, separator: string): string;
  /** Element `index` (0-based) of a list. */
  at(listExpr: string, index: number): string;
  translate(expr: string, from: string, to: string): string;
  /** Decimal digits as a 64-bit integer. */
  digitsToInt(expr: string): string;
  /** Decimal digits beyond 64-bit range as an exact wide number. */
  digitsToBig(expr: string): string;
  /** 20 decimal digits of u = v + 2^63 as the signed v; NULL when out of range. */
  digitsToOffsetInt64(expr: string): string;
  /** Hex of at most 15 digits as a 64-bit integer. */
  hexToInt(expr: string): string;
  /** 16 hex digits as an unsigned 64-bit number (exact, wide type). */
  hex64ToUnsigned(expr: string): string;
  /** 16 hex digits as an int64 when below 2^63, else NULL. */
  hex64ToIntOrNull(expr: string): string;
  /** An integer count of `unit` since the epoch as a TIMESTAMP; NULL beyond the engine's range. */
  timestamp(intExpr: string, unit: TimeUnit): string;
  date(timestampExpr: string): string;
  /** Text whose escapes are `escapeChar` + two hex digits, unescaped. */
  unescape(expr: string, escapeChar: string): string;
  /** Hex of UTF-8 bytes as text; NULL when not valid UTF-8. */
  hexToText(expr: string): string;
  reverseLabels(expr: string): string;
  /** values[index], NULL out of range. */
  pick(values: readonly string[], indexExpr: string): string;
  /** String concatenation. */
  concat(parts: readonly string[]): string;
  /** `int` zero-padded to `width` digits. */
  padDigits(intExpr: string, width: number): string;
  char(code: number): string;
  /** parseInt(md5(text).hex[0..4], 16) mod n: the md5-hex4 salt. */
  md5Hex4Bucket(textExpr: string, buckets: number): string;
}

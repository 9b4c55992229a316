/**
 * The view's query, written once over a dialect: the rows whose key has the schema's exact shape,
 * the salt as `bucket`, every key field as a typed column, the lifted cells, and `day`. A row
 * whose field SQL cannot represent (a timestamp beyond the engine's range, bytes that are not
 * UTF-8, an enum index past its values) is left out, as `keyspread export` skips undecodable rows:
 * a NULL never stands in for a value.
 */
import type { SqlDialect } from "./dialect.js";
import type { DecodingPlan, PlanField } from "./plan.js";

/** Where the rows come from: the external table, the change-streams table, a DuckDB table. */
export interface RowSource {
  /** The FROM item. */
  from: string;
  /** The column holding the row key (STRING for text plans, BYTES for binary ones). */
  rowKey: string;
  /** The lifted cell `name` as a typed SQL expression over the source's columns. */
  cell(name: string, type: string): string;
  /** Source columns kept, as SQL select items (e.g. the change record's mod_type). */
  keep?: readonly string[];
}

const KEY = "_k";

/** The SELECT decoding `source`'s rows; `where` narrows the rows read (a row-key range). */
export function decodeQuery(
  plan: DecodingPlan,
  dialect: SqlDialect,
  source: RowSource,
  where?: string,
): string {
  const d = dialect;
  const keyed = plan.layout === "text" ? d.split(source.rowKey, plan.separator) : d.hex(source.rowKey);
  const shapeOn = plan.layout === "text" ? source.rowKey : d.hex(source.rowKey);
  const filters = [d.matches(shapeOn, plan.shape), ...(where ? [`(${where})`] : [])];
  const columns = [
    `${source.rowKey} AS rowkey`,
    ...(plan.salt ? [`${bucketSql(plan.salt, d)} AS bucket`] : []),
    ...plan.fields.map((field) => `${fieldSql(plan, field, d)} AS ${d.id(field.name)}`),
    ...plan.cells.map((cell) => `${source.cell(cell.name, cell.type)} AS ${d.id(cell.name)}`),
    ...(source.keep ?? []),
  ];
  const day = plan.dayField ? `, ${d.date(d.id(plan.dayField))} AS day` : "";
  const complete = plan.fields.map((field) => `${d.id(field.name)} IS NOT NULL`).join("\n  AND ");
  return [
    `SELECT *${day}`,
    "FROM (",
    "  SELECT",
    columns.map((c) => `    ${c}`).join(",\n"),
    `  FROM (SELECT *, ${keyed} AS ${KEY} FROM ${source.from} WHERE ${filters.join(" AND ")}) AS keyed`,
    ") AS decoded",
    `WHERE ${complete}`,
  ].join("\n");
}

function bucketSql(salt: NonNullable<DecodingPlan["salt"]>, d: SqlDialect): string {
  return "width" in salt ? d.digitsToInt(d.at(KEY, 0)) : d.hexToInt(`SUBSTR(${KEY}, 1, ${2 * salt.bytes})`);
}

const DIGITS = "0123456789";
const HEX = "0123456789abcdef";
const reversed = (text: string) => [...text].reverse().join("");
/** Largest s or ms timestamp keyspread decodes (they travel as JavaScript numbers). */
const MAX_SAFE = "9007199254740991";

function fieldSql(plan: DecodingPlan, field: PlanField, d: SqlDialect): string {
  const raw =
    plan.layout === "text"
      ? d.at(KEY, field.part)
      : d.capture(KEY, `^${field.hexBefore}(${field.hexPattern})`);
  const decoder = field.decoder;
  switch (decoder.kind) {
    case "text":
      return raw;
    case "unescape": {
      const text = d.unescape(raw, decoder.escapeChar);
      return decoder.reverseDomain ? d.reverseLabels(text) : text;
    }
    case "hex-utf8": {
      const hex = decoder.escapedNul
        ? `REPLACE(REPLACE(${d.replaceAll(raw, "(..)", "\\1 ")}, '00 ff ', '00 '), ' ', '')`
        : raw;
      const text = d.hexToText(hex);
      return decoder.reverseDomain ? d.reverseLabels(text) : text;
    }
    case "unsigned":
      if (decoder.digits !== undefined) {
        if (decoder.offset) return d.digitsToOffsetInt64(raw);
        return field.type === "big" ? d.digitsToBig(raw) : d.digitsToInt(raw);
      }
      if (decoder.offset) {
        // u = v + 2^63 in two unsigned 32-bit halves: v = (high − 2^31) · 2^32 + low, never overflowing.
        return `((${d.hexToInt(`SUBSTR(${raw}, 1, 8)`)} - 2147483648) * 4294967296 + ${d.hexToInt(`SUBSTR(${raw}, 9, 8)`)})`;
      }
      return decoder.bytes === 8 ? d.hex64ToUnsigned(raw) : d.hexToInt(raw);
    case "timestamp": {
      let count: string;
      if (decoder.digits !== undefined) {
        count = d.digitsToInt(decoder.complement ? d.translate(raw, DIGITS, reversed(DIGITS)) : raw);
      } else {
        const hex = decoder.complement ? d.translate(raw, HEX, reversed(HEX)) : raw;
        const value = d.hex64ToIntOrNull(hex);
        count = decoder.unit === "us" ? value : `CASE WHEN ${value} <= ${MAX_SAFE} THEN ${value} END`;
      }
      return d.timestamp(count, decoder.unit);
    }
    case "enum": {
      const index = decoder.digits !== undefined ? d.digitsToInt(raw) : d.hexToInt(raw);
      return d.pick(decoder.values, index);
    }
  }
}

/**
 * One access-log record, parsed from a JSONL line or a CSV row. Pure.
 *
 * Fields: `ts` (ISO 8601 text, or a number of epoch milliseconds), `key` (text, or `hex:` + hex
 * digits for binary keys), `op` (`read`, `write` or `scan`), optional `bytes`, `latencyMs`, `node`,
 * and for a scan `rows` (rows it returned) and `end` (its end key; empty or absent: open-ended).
 */
import { parseKeyText } from "../keys/key-text.js";
import { AccessRecordError } from "./access-record-error.js";

export type AccessOp = "read" | "write" | "scan";

export interface AccessRecord {
  tsMs: number;
  key: Buffer;
  op: AccessOp;
  bytes: number;
  latencyMs?: number;
  node?: string;
  /** A scan's rows returned and end key (null: to the end of the table). */
  rows?: number;
  end?: Buffer | null;
}

const OPS: ReadonlySet<string> = new Set<AccessOp>(["read", "write", "scan"]);
const FIELDS = ["ts", "key", "op", "bytes", "latencyMs", "node", "rows", "end"] as const;
type Field = (typeof FIELDS)[number];

/** Errors name the field and value, and what is allowed; the reader prefixes the file and line. */
function fail(field: string, value: unknown, allowed: string, message?: string): never {
  throw new AccessRecordError(
    field,
    value,
    allowed,
    message ?? `${field} ${JSON.stringify(value)}: expected ${allowed}`,
  );
}

/** The key's bytes; a key parser's error (bad `hex:` text) names the key field. */
function keyBytes(text: string, parseKey: KeyParser, field: "key" | "end" = "key"): Buffer {
  try {
    return parseKey(text);
  } catch (error) {
    return fail(field, text, "text, or hex: and an even number of hex digits", (error as Error).message);
  }
}

function parseTs(value: unknown): number {
  const ms =
    typeof value === "number" ? value : typeof value === "string" ? timestampText(value) : Number.NaN;
  if (!Number.isFinite(ms)) fail("ts", value, "ISO 8601 text or epoch milliseconds");
  return ms;
}

function timestampText(text: string): number {
  return /^\d+(\.\d+)?$/.test(text) ? Number(text) : Date.parse(text);
}

function parseOptionalNumber(value: unknown, field: Field): number | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  const number = typeof value === "number" ? value : typeof value === "string" ? Number(value) : Number.NaN;
  if (!Number.isFinite(number) || number < 0) {
    fail(field, value, "a number ≥ 0");
  }
  return number;
}

/** Turns a key's text into bytes; a reader of a long log may pass one that reuses the bytes of keys it has seen. */
export type KeyParser = (text: string) => Buffer;

function toRecord(fields: Partial<Record<Field, unknown>>, parseKey: KeyParser): AccessRecord {
  const { key, op } = fields;
  if (typeof key !== "string") fail("key", key, "text (or hex:… for binary keys)");
  if (typeof op !== "string" || !OPS.has(op)) fail("op", op, "read, write or scan");
  const record: AccessRecord = {
    tsMs: parseTs(fields.ts),
    key: keyBytes(key, parseKey),
    op: op as AccessOp,
    bytes: parseOptionalNumber(fields.bytes, "bytes") ?? 0,
  };
  const latencyMs = parseOptionalNumber(fields.latencyMs, "latencyMs");
  if (latencyMs !== undefined) record.latencyMs = latencyMs;
  const rows = parseOptionalNumber(fields.rows, "rows");
  if (rows !== undefined) record.rows = rows;
  if (fields.end !== undefined) {
    if (fields.end !== null && typeof fields.end !== "string")
      fail("end", fields.end, "a key (text, or hex:…), or null");
    record.end = fields.end === null || fields.end === "" ? null : keyBytes(fields.end, parseKeyText, "end");
  }
  if (fields.node !== undefined && fields.node !== null && fields.node !== "")
    record.node = String(fields.node);
  return record;
}

/** A JSON number ≥ 0 without exponent (JSON's grammar: no leading zeros), short enough to be finite. */
const PLAIN_NUMBER = String.raw`(?:0|[1-9]\d{0,20})(?:\.\d{1,20})?`;
/**
 * A line exactly as `formatAccessLine` (and most loggers) writes the common fields, in that order:
 * a key free of escapes, quotes and control characters, numbers ≥ 0. It reads the same through
 * this expression as through JSON.parse and `toRecord`, at about a third of the cost.
 */
const CANONICAL_LINE = new RegExp(
  String.raw`^\{"ts":(${PLAIN_NUMBER}),"key":"([^"\\\x00-\x1f]*)","op":"(read|write|scan)"(?:,"bytes":(${PLAIN_NUMBER}))?(?:,"latencyMs":(${PLAIN_NUMBER}))?\}$`,
);

function jsonRecord(line: string, parseKey: KeyParser): AccessRecord {
  const canonical = CANONICAL_LINE.exec(line);
  if (canonical !== null) {
    // The key's group is not optional: it matched, if only the empty key.
    const [, ts, key = "", op, bytes, latencyMs] = canonical;
    const record: AccessRecord = {
      tsMs: Number(ts),
      key: keyBytes(key, parseKey),
      op: op as AccessOp,
      bytes: bytes === undefined ? 0 : Number(bytes),
    };
    if (latencyMs !== undefined) record.latencyMs = Number(latencyMs);
    return record;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    fail("line", line, "one JSON object per line", "not valid JSON (expected one object per line)");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    fail("line", line, "a JSON object", "expected a JSON object");
  return toRecord(parsed as Partial<Record<Field, unknown>>, parseKey);
}

const QUICK_TS = /"ts"\s*:\s*(?:"([^"]*)"|(\d+(?:\.\d+)?))/;
const QUICK_KEY = /"key"\s*:\s*"([^"]*)"/;

/**
 * Just `ts` and `key` of a JSONL line, for the sampling pass: two regular expressions are ~3× cheaper
 * than JSON.parse. Only for lines without backslashes (no escaped quotes, so the tokens cannot be
 * misread); anything else goes through the full parse. The counting pass validates every line.
 */
export function quickJsonTimeAndKey(line: string): { tsMs: number; key: Buffer } {
  if (!line.includes("\\")) {
    const ts = QUICK_TS.exec(line);
    const key = QUICK_KEY.exec(line);
    if (ts && key)
      return { tsMs: parseTs(ts[1] ?? Number(ts[2])), key: keyBytes(key[1] ?? "", parseKeyText) };
  }
  return parseAccessJsonRecord(line);
}

/** Just `ts` and `key` of a CSV row, for the sampling pass (the counting pass validates every field). */
export function quickCsvTimeAndKey(line: string, columns: CsvColumns): { tsMs: number; key: Buffer } {
  const cells = line.split(",");
  const key = cells[columns.key]?.trim();
  if (key === undefined || line.includes('"')) return parseAccessCsvRecord(line, columns);
  return { tsMs: parseTs(cells[columns.ts]?.trim()), key: parseKeyText(key) };
}

/** Column positions from a CSV header such as `ts,key,op,bytes,latencyMs,node` (any order). */
export type CsvColumns = Partial<Record<Field, number>> & Record<"ts" | "key" | "op", number>;

export function parseAccessCsvHeader(header: string): CsvColumns {
  const columns: Partial<Record<Field, number>> = {};
  header.split(",").forEach((name, index) => {
    const field = name.trim();
    if (!(FIELDS as readonly string[]).includes(field)) {
      fail(
        "header",
        field,
        `one of ${FIELDS.join(", ")}`,
        `CSV header: column "${field}": expected one of ${FIELDS.join(", ")}`,
      );
    }
    columns[field as Field] = index;
  });
  const { ts, key, op } = columns;
  const missing = (column: string): never =>
    fail("header", header, `columns ts, key and op`, `CSV header: missing required column "${column}"`);
  if (ts === undefined) return missing("ts");
  if (key === undefined) return missing("key");
  if (op === undefined) return missing("op");
  return { ...columns, ts, key, op };
}

/**
 * A CSV row of the documented format. Values are plain (no quoting): keys with commas, quotes or
 * non-ASCII bytes are written as `hex:…`, so a split on commas is exact.
 */
function csvRecord(line: string, columns: CsvColumns, parseKey: KeyParser): AccessRecord {
  if (line.includes('"'))
    fail(
      "line",
      line,
      'plain values: keys with commas or quotes as "hex:…"',
      'quoted CSV values are not supported: write such keys as "hex:…"',
    );
  const cells = line.split(",");
  const fields: Partial<Record<Field, unknown>> = {};
  for (const field of FIELDS) {
    const index = columns[field];
    if (index !== undefined) fields[field] = cells[index]?.trim();
  }
  return toRecord(fields, parseKey);
}

export function parseAccessJsonRecord(line: string): AccessRecord {
  return jsonRecord(line, parseKeyText);
}

export function parseAccessCsvRecord(line: string, columns: CsvColumns): AccessRecord {
  return csvRecord(line, columns, parseKeyText);
}

/** Both record parsers, turning key text into bytes with `parseKey`. */
export function accessRecordParsers(parseKey: KeyParser) {
  return {
    json: (line: string) => jsonRecord(line, parseKey),
    csv: (line: string, columns: CsvColumns) => csvRecord(line, columns, parseKey),
  };
}

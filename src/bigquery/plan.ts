/**
 * The decoding plan: how a key schema's row keys split into typed columns, built once and printed
 * by each SQL dialect (BigQuery GoogleSQL, DuckDB). A text key is read as text and split at its
 * separator (no segment can hold the separator: raw strings reject it, escaped strings escape
 * it); a binary key is read as lowercase hex and cut by one anchored regular expression whose
 * pieces each consume whole bytes (two hex digits), so no match can straddle a byte boundary.
 * What SQL cannot decode exactly is refused here, naming the codec, never printed half right.
 */
import type { CellColumn } from "../export/columns.js";
import { uintBytes, uintWidth } from "../keys/codec.js";
import { SALT_HASHES } from "../keys/salt.js";
import type { NormalizedSpec } from "../keys/spec.js";
import type { CodecSpec, KeySchema, TimeUnit } from "../keys/types.js";

/** What SQL cannot decode; `name` is the field, cell or hash concerned, where there is one. */
export type SqlDecodeProblem =
  | "write-shards"
  | "reversed-uint"
  | "raw-byte-salt"
  | "not-a-timestamp"
  | "bad-column-name"
  | "column-clash";

export class SqlDecodeError extends Error {
  override name = "SqlDecodeError";
  constructor(
    message: string,
    readonly problem: SqlDecodeProblem,
    readonly subject?: string,
  ) {
    super(message);
  }
}

/** How one field's text (a split part) or hex (a regex capture) becomes its value. */
export type FieldDecoder =
  /** Text as is (a raw string). */
  | { kind: "text" }
  /** Text with escapes `E` + two uppercase hex digits (text layout's escaped strings). */
  | { kind: "unescape"; escapeChar: string; reverseDomain: boolean }
  /** Hex of UTF-8 bytes; `escapedNul`: 00 is written 00 FF (binary layout's escaped strings). */
  | { kind: "hex-utf8"; escapedNul: boolean; reverseDomain: boolean }
  /** Decimal digits (complemented when `complement`) or big-endian hex of `bytes` bytes. */
  | ({
      kind: "unsigned";
      complement: boolean;
      /** An int64 field: the value is the unsigned one minus 2^63. */
      offset: boolean;
    } & ({ digits: number; bytes?: undefined } | { bytes: number; digits?: undefined }))
  | { kind: "timestamp"; unit: TimeUnit; digits?: number; bytes?: number; complement: boolean }
  | { kind: "enum"; values: readonly string[]; digits?: number; bytes?: number };

export interface PlanField {
  name: string;
  codec: CodecSpec;
  decoder: FieldDecoder;
  /** Text layout: index of the field's part in the key split at the separator (0-based). */
  part: number;
  /** Binary layout: the regular expression pieces before this field's capture, and its own. */
  hexBefore: string;
  hexPattern: string;
  /** SQL type: "int64", "bignumeric" (above int64), "string", "timestamp". */
  type: "int64" | "big" | "string" | "timestamp";
}

/**
 * How the engine should hold the row key (text for text layouts, bytes otherwise), the text
 * layout's separator, and the salt: digits in part 0 (text) or `bytes` hex bytes at the front (binary).
 */
export type DecodingPlan = PlanShape &
  (
    | { layout: "text"; rowKey: "string"; separator: string; salt: { width: number } | undefined }
    | { layout: "binary"; rowKey: "bytes"; separator: undefined; salt: { bytes: number } | undefined }
  );

interface PlanShape {
  name: string;
  fields: readonly PlanField[];
  /** Text: one anchored pattern the whole key must match. Binary: the same over its hex. */
  shape: string;
  /** Timestamp field the `day` column comes from; undefined when the schema has none. */
  dayField: string | undefined;
  cells: readonly CellColumn[];
}

const INT64_DIGITS = 18;

/** Builds the plan; throws SqlDecodeError naming the codec or feature SQL cannot decode. */
export function decodingPlan(
  schema: KeySchema,
  options: { cells?: readonly CellColumn[]; dayField?: string } = {},
): DecodingPlan {
  const spec = schema.spec as NormalizedSpec;
  if (spec.writeShards) {
    throw new SqlDecodeError(
      `schema "${spec.name}" has writeShards: a sharded row's key ends in a shard suffix only some rows carry, which the views do not decode; remove writeShards or decode those rows with keyspread`,
      "write-shards",
    );
  }
  const reversed = spec.segments.find(
    (segment) => "field" in segment && segment.codec.type === "reversed-uint",
  ) as { field: string } | undefined;
  if (reversed) {
    throw new SqlDecodeError(
      `schema "${spec.name}": field "${reversed.field}" is a reversed-uint, which the views do not decode yet; decode those keys with keyspread (keys decode, export)`,
      "reversed-uint",
      reversed.field,
    );
  }
  const cells = options.cells ?? [];
  checkCells(schema, cells);
  const dayField = dayFieldOf(schema, options.dayField);
  return spec.layout === "text" ? textPlan(spec, cells, dayField) : binaryPlan(spec, cells, dayField);
}

function textPlan(
  spec: Extract<NormalizedSpec, { layout: "text" }>,
  cells: readonly CellColumn[],
  dayField: string | undefined,
): DecodingPlan {
  const { separator, salt } = spec;
  let saltWidth: number | undefined;
  if (salt) {
    if (salt.width === undefined) {
      throw new SqlDecodeError(
        `salt hash "${salt.hash}" writes one raw byte in front of a text key, which a STRING row key cannot hold; the views decode text keys with a decimal salt (xxh32, md5-hex4)`,
        "raw-byte-salt",
        salt.hash,
      );
    }
    saltWidth = salt.width;
  }
  const sep = regexChar(separator.charCodeAt(0));
  const escapeChar = String.fromCharCode(separator.charCodeAt(0) + 1);
  const parts: string[] = saltWidth === undefined ? [] : [`[0-9]{${saltWidth}}`];
  const fields: PlanField[] = [];
  for (const segment of spec.segments) {
    if ("literal" in segment) {
      parts.push(regexText(segment.literal));
      continue;
    }
    const { field, codec } = segment;
    const decoder = textDecoder(codec, escapeChar);
    fields.push({
      name: field,
      codec,
      decoder,
      part: parts.length,
      hexBefore: "",
      hexPattern: "",
      type: sqlType(codec, decoder),
    });
    parts.push(textPattern(codec, sep, escapeChar));
  }
  return {
    name: spec.name,
    layout: "text",
    rowKey: "string",
    separator,
    salt: saltWidth === undefined ? undefined : { width: saltWidth },
    fields,
    shape: `^${parts.join(sep)}$`,
    dayField,
    cells,
  };
}

function textDecoder(codec: CodecSpec, escapeChar: string): FieldDecoder {
  switch (codec.type) {
    case "string":
      return codec.raw ? { kind: "text" } : { kind: "unescape", escapeChar, reverseDomain: false };
    case "reverse-domain":
      return { kind: "unescape", escapeChar, reverseDomain: true };
    case "uint":
      return { kind: "unsigned", digits: uintWidth(codec), complement: false, offset: false };
    case "reversed-uint":
      throw new SqlDecodeError("reversed-uint fields are not decoded in SQL", "reversed-uint");
    case "int64":
      return { kind: "unsigned", digits: 20, complement: false, offset: true };
    case "timestamp":
      return {
        kind: "timestamp",
        unit: codec.unit,
        digits: TEXT_TIMESTAMP_DIGITS[codec.unit],
        complement: codec.reverse === true,
      };
    case "enum":
      return { kind: "enum", values: codec.values, digits: String(codec.values.length - 1).length };
  }
}

const TEXT_TIMESTAMP_DIGITS: Record<TimeUnit, number> = { s: 10, ms: 13, us: 16 };

/** The regular expression one text part matches (the key's own spelling, nothing looser). */
function textPattern(codec: CodecSpec, sep: string, escapeChar: string): string {
  const decoder = textDecoder(codec, escapeChar);
  switch (decoder.kind) {
    case "text":
      return `[^${sep}]*`;
    case "unescape": {
      const e = escapeChar.charCodeAt(0);
      return `(?:[^\\x00-${regexChar(e)}]|${regexChar(e)}(?:${hexAtMost(e)}))*`;
    }
    default:
      return `[0-9]{${"digits" in decoder ? decoder.digits : 0}}`;
  }
}

/** Two uppercase hex digits spelling a byte in 0..max (the encoder's only spelling of an escape). */
function hexAtMost(max: number): string {
  const high = max >> 4;
  const low = max & 15;
  const digit = (d: number) => "0123456789ABCDEF"[d]!;
  const range = (from: number, to: number) => (from === to ? digit(from) : `[${digit(from)}-${digit(to)}]`);
  const below = high > 0 ? [`${range(0, high - 1)}[0-9A-F]`] : [];
  return [...below, `${digit(high)}${range(0, low)}`].join("|");
}

function binaryPlan(
  spec: NormalizedSpec,
  cells: readonly CellColumn[],
  dayField: string | undefined,
): DecodingPlan {
  const salt = spec.salt;
  const saltBytes = salt ? (SALT_HASHES[salt.hash].oneRawByte || salt.buckets <= 256 ? 1 : 2) : 0;
  const pieces: string[] = saltBytes > 0 ? [`[0-9a-f]{${2 * saltBytes}}`] : [];
  const fields: PlanField[] = [];
  spec.segments.forEach((segment, i) => {
    if ("literal" in segment) {
      pieces.push(Buffer.from(segment.literal, "utf8").toString("hex"));
      return;
    }
    const last = i === spec.segments.length - 1;
    const { decoder, pattern, suffix } = binaryField(segment.codec, last);
    fields.push({
      name: segment.field,
      codec: segment.codec,
      decoder,
      part: -1,
      hexBefore: pieces.join(""),
      hexPattern: pattern,
      type: sqlType(segment.codec, decoder),
    });
    pieces.push(`(?:${pattern})${suffix}`);
  });
  return {
    name: spec.name,
    layout: "binary",
    rowKey: "bytes",
    separator: undefined,
    salt: saltBytes > 0 ? { bytes: saltBytes } : undefined,
    fields,
    shape: `^${pieces.join("")}$`,
    dayField,
    cells,
  };
}

/** A byte other than 00, as two lowercase hex digits. */
const NON_NUL = "0[1-9a-f]|[1-9a-f][0-9a-f]";
const hexBytes = (n: number) => `[0-9a-f]{${2 * n}}`;

function binaryField(
  codec: CodecSpec,
  last: boolean,
): { decoder: FieldDecoder; pattern: string; suffix: string } {
  switch (codec.type) {
    case "string":
      if (codec.raw) {
        // Raw: no 00 inside; ended by 00, or by the key's end when last.
        return {
          decoder: { kind: "hex-utf8", escapedNul: false, reverseDomain: false },
          pattern: `(?:${NON_NUL})*`,
          suffix: last ? "" : "00",
        };
      }
      return escapedBinary(false);
    case "reverse-domain":
      return escapedBinary(true);
    case "reversed-uint":
      throw new SqlDecodeError("reversed-uint fields are not decoded in SQL", "reversed-uint");
    case "uint":
      return {
        decoder: { kind: "unsigned", bytes: uintBytes(codec), complement: false, offset: false },
        pattern: hexBytes(uintBytes(codec)),
        suffix: "",
      };
    case "int64":
      return {
        decoder: { kind: "unsigned", bytes: 8, complement: false, offset: true },
        pattern: hexBytes(8),
        suffix: "",
      };
    case "timestamp":
      return {
        decoder: { kind: "timestamp", unit: codec.unit, bytes: 8, complement: codec.reverse === true },
        pattern: hexBytes(8),
        suffix: "",
      };
    case "enum": {
      const bytes = codec.values.length - 1 < 256 ? 1 : 2;
      return { decoder: { kind: "enum", values: codec.values, bytes }, pattern: hexBytes(bytes), suffix: "" };
    }
  }
}

/** Memcomparable strings: 00 is written 00 FF, the value ends with 00 01. */
function escapedBinary(reverseDomain: boolean) {
  return {
    decoder: { kind: "hex-utf8", escapedNul: true, reverseDomain } as FieldDecoder,
    pattern: `(?:${NON_NUL}|00ff)*`,
    suffix: "0001",
  };
}

function sqlType(codec: CodecSpec, decoder: FieldDecoder): PlanField["type"] {
  if (codec.type === "timestamp") return "timestamp";
  if (decoder.kind !== "unsigned") return "string";
  if (decoder.offset) return "int64";
  const fitsInt64 = decoder.digits !== undefined ? decoder.digits <= INT64_DIGITS : decoder.bytes < 8;
  return fitsInt64 ? "int64" : "big";
}

function dayFieldOf(schema: KeySchema, requested: string | undefined): string | undefined {
  const timestamps = schema.fields.filter((f) => f.codec.type === "timestamp").map((f) => f.name);
  if (requested === undefined) return timestamps[0];
  if (!timestamps.includes(requested)) {
    throw new SqlDecodeError(
      `day field "${requested}" is not a timestamp field of "${schema.spec.name}"; allowed: ${timestamps.join(", ") || "(none)"}`,
      "not-a-timestamp",
      requested,
    );
  }
  return requested;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checkCells(schema: KeySchema, cells: readonly CellColumn[]): void {
  // The view's own columns, and the change records' columns the changelog view keeps.
  const taken = new Set([
    ...schema.fields.map((f) => f.name),
    ...["rowkey", "bucket", "day", "mod_type", "column_family", "change_column", "change_value"],
    ...["commit_timestamp", "cell_timestamp", "is_gc"],
  ]);
  for (const cell of cells) {
    if (!IDENTIFIER.test(cell.name)) {
      throw new SqlDecodeError(
        `cell "${cell.name}" is not a column name SQL accepts unquoted (letters, digits and _, not starting with a digit)`,
        "bad-column-name",
        cell.name,
      );
    }
    if (taken.has(cell.name)) {
      throw new SqlDecodeError(
        `cell "${cell.name}" clashes with a key field or a view column; rename it`,
        "column-clash",
        cell.name,
      );
    }
    taken.add(cell.name);
  }
}

/** A byte as a regular-expression atom: letters and digits as is, anything else as \xHH. */
export function regexChar(code: number): string {
  const char = String.fromCharCode(code);
  return /[A-Za-z0-9]/.test(char) ? char : `\\x${code.toString(16).padStart(2, "0")}`;
}

/** Literal text as a pattern (UTF-8 beyond ASCII passes as is: RE2 matches it as text). */
export function regexText(text: string): string {
  return [...text].map((char) => (char.charCodeAt(0) < 0x80 ? regexChar(char.charCodeAt(0)) : char)).join("");
}

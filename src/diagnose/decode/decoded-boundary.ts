/**
 * A raw key (a tablet boundary, a hot tablet's start or end) read back through the schema. A key
 * the schema cannot decode is kept raw with the reason, never an error: boundaries fall anywhere,
 * and a table may hold rows another schema wrote. Pure.
 */
import type { DecodedKey, FieldValue, KeySchema, TimeUnit } from "../../keys/types.js";

export type DecodedBoundary =
  /** The start or end of the table (an empty key). */
  | { kind: "table-edge" }
  | { kind: "decoded"; bucket: number; values: Record<string, FieldValue> }
  /** Not a whole key of the schema; the bucket when the salt prefix could still be read. */
  | { kind: "raw"; hex: string; text: string | undefined; bucket?: number; reason: string };

/** A decoded value as text (dates as ISO-8601). */
export function valueText(value: unknown): string {
  return value instanceof Date ? value.toISOString() : String(value);
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** The key as text when it is printable UTF-8 (boundaries of text keys read best as text). */
export function printable(key: Buffer): string | undefined {
  try {
    const text = UTF8.decode(key);
    return /^[\x20-\x7e\u00a0-\uffff]*$/.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

const MS_PER: Record<TimeUnit, number> = { s: 1000, ms: 1, us: 0.001 };

/**
 * The key decoded, with timestamp fields as dates (a hot range's time span reads as times, not
 * epoch numbers); throws what the schema throws.
 */
export function decodeKey(schema: KeySchema, key: Buffer): DecodedKey {
  const { bucket, values } = schema.decode(key);
  const dated: Record<string, FieldValue> = { ...values };
  for (const { name, codec } of schema.fields) {
    const value = values[name];
    if (codec.type === "timestamp" && (typeof value === "number" || typeof value === "bigint"))
      dated[name] = new Date(Number(value) * MS_PER[codec.unit]);
  }
  return { bucket, values: dated };
}

export function decodeBoundary(schema: KeySchema, key: Buffer | null): DecodedBoundary {
  if (key === null || key.length === 0) return { kind: "table-edge" };
  try {
    const { bucket, values } = decodeKey(schema, key);
    return { kind: "decoded", bucket, values };
  } catch (error) {
    let bucket: number | undefined;
    try {
      if (schema.bucketCount > 1 && key.length >= schema.saltPrefixLength) bucket = schema.bucketOfKey(key);
    } catch {
      bucket = undefined;
    }
    return {
      kind: "raw",
      hex: key.toString("hex"),
      text: printable(key),
      ...(bucket === undefined ? {} : { bucket }),
      reason: (error as Error).message,
    };
  }
}

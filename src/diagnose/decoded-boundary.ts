/**
 * A raw key (a tablet boundary, a hot tablet's start or end) read back through the schema. A key
 * the schema cannot decode is kept raw with the reason, never an error: boundaries fall anywhere,
 * and a table may hold rows another schema wrote. Pure.
 */
import type { FieldValue, KeySchema } from "../keys/types.js";

export type DecodedBoundary =
  /** The start or end of the table (an empty key). */
  | { kind: "table-edge" }
  | { kind: "decoded"; bucket: number; values: Record<string, FieldValue> }
  /** Not a whole key of the schema; the bucket when the salt prefix could still be read. */
  | { kind: "raw"; hex: string; text: string | undefined; bucket?: number; reason: string };

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

export function decodeBoundary(schema: KeySchema, key: Buffer | null): DecodedBoundary {
  if (key === null || key.length === 0) return { kind: "table-edge" };
  try {
    const { bucket, values } = schema.decode(key);
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

/**
 * A row's meaning as a 64-bit hash: decoded field values by name plus cells, not key bytes, so
 * the same row under two schemas hashes the same. Sums of these (mod 2^64) compare tables
 * whatever order their rows come in; a sum, unlike XOR, does not cancel a row written twice.
 */
import { createHash } from "node:crypto";
import type { FieldValue } from "../keys/types.js";

const MASK_64 = (1n << 64n) - 1n;

/** The canonical text of a row: fields sorted by name, integers as decimals, cells sorted by qualifier. */
export function canonicalRow(values: Record<string, FieldValue>, cells: ReadonlyMap<string, Buffer>): string {
  const fields = Object.keys(values)
    .sort()
    .map((name) => `${name}=${canonicalValue(values[name]!)}`);
  const cellText = [...cells]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([qualifier, value]) => `${qualifier}=${value.toString("base64")}`);
  return `${fields.join("\u0000")}\u0001${cellText.join("\u0000")}`;
}

export function canonicalValue(value: FieldValue): string {
  if (typeof value === "string") return `s:${value}`;
  if (value instanceof Date) return `i:${value.getTime()}`;
  return `i:${value}`;
}

/** The first 64 bits of the canonical row's MD5 (a checksum, not a security property). */
export function rowDigest(values: Record<string, FieldValue>, cells: ReadonlyMap<string, Buffer>): bigint {
  return createHash("md5").update(canonicalRow(values, cells)).digest().readBigUInt64BE(0);
}

/** A multiset of rows: how many, and the sum of their digests mod 2^64. */
export class RowSet {
  rows = 0;
  private sum = 0n;

  add(digest: bigint): void {
    this.rows++;
    this.sum = (this.sum + digest) & MASK_64;
  }

  get checksum(): string {
    return this.sum.toString(16).padStart(16, "0");
  }

  equals(other: RowSet): boolean {
    return this.rows === other.rows && this.sum === other.sum;
  }
}

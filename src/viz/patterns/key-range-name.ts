/**
 * Names a band of heatmap rows in the key's own words: the common prefix of its keys (`acme-*`,
 * `03#fleet-7#*`) when that prefix holds little key space beyond the band, else the exact range
 * `[start, end)`. Pure.
 */
import { displayKey } from "../../keys/key-text.js";
import type { HeatRow } from "../matrix/heat-matrix.js";
import { RULES } from "./rules.js";

function commonPrefix(keys: readonly Buffer[]): Buffer {
  let length = keys[0]!.length;
  for (const key of keys.slice(1)) {
    length = Math.min(length, key.length);
    for (let index = 0; index < length; index++) {
      if (key[index] !== keys[0]![index]) {
        length = index;
        break;
      }
    }
  }
  return keys[0]!.subarray(0, length);
}

const isWordByte = (byte: number) =>
  (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);

/** Cut back to the end of the last whole word: `acme-0` → `acme-`, `t08#e0008` → `t08#`. */
export function wholeWords(prefix: Buffer): Buffer {
  let end = prefix.length;
  while (end > 0 && isWordByte(prefix[end - 1]!)) end--;
  return prefix.subarray(0, end);
}

/** The first key after every key that starts with `prefix`; null when there is none (all 0xff). */
function prefixEnd(prefix: Buffer): Buffer | null {
  let last = prefix.length - 1;
  while (last >= 0 && prefix[last] === 0xff) last--;
  if (last < 0) return null;
  const end = Buffer.from(prefix.subarray(0, last + 1));
  end[last]! += 1;
  return end;
}

/**
 * Keys inside the band: the start of every row after the first (the first row may begin before
 * the hot keys do; the end is the next row's start); with fewer than two, the band's edges too.
 */
function keysWithin(rows: readonly HeatRow[], first: number, last: number): Buffer[] {
  const keys = rows.slice(first + 1, last + 1).map((row) => row.start);
  const start = rows[first]!.start;
  const end = rows[last]!.end;
  if (keys.length < 2 && start.length > 0) keys.push(start);
  if (keys.length < 2 && end !== null) keys.push(end);
  return keys;
}

/** `acme-*`, `[a, b)` or `the whole key space`, for rows `first..last`. */
export function keyRangeName(rows: readonly HeatRow[], first: number, last: number): string {
  const start = rows[first]!.start;
  const end = rows[last]!.end;
  if (start.length === 0 && end === null) return "the whole key space";
  const keys = keysWithin(rows, first, last);
  if (keys.length >= 2) {
    const exact = commonPrefix(keys);
    const bandKeys = rows.slice(first, last + 1).reduce((sum, row) => sum + row.keyShare, 0);
    for (const prefix of [wholeWords(exact), exact]) {
      if (prefix.length === 0) continue;
      // Rows outside the band that start with the prefix: key space the name would wrongly claim.
      // (The row before the band may end inside the prefix: its keys there sort before the band's
      // first tablet boundary, which is a real key, so there are few of them.)
      const to = prefixEnd(prefix);
      const startsWithin = (row: HeatRow) =>
        Buffer.compare(row.start, prefix) >= 0 && (to === null || Buffer.compare(row.start, to) < 0);
      const outside = rows.reduce(
        (sum, row, index) =>
          (index >= first && index <= last) || !startsWithin(row) ? sum : sum + row.keyShare,
        0,
      );
      if (outside <= RULES.naming.maxOutsideKeys * bandKeys) return `${displayKey(prefix)}*`;
    }
  }
  return exactRange(start, end);
}

/** `[start, end)` as keys are shown everywhere. */
export function exactRange(start: Buffer, end: Buffer | null): string {
  return `[${start.length ? displayKey(start) : "start of table"}, ${end ? displayKey(end) : "end of table"})`;
}

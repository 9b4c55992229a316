/**
 * A sample of real row keys, one per line (text, or hex for binary keys), split into components on
 * the separator they share. Ids and times that contain separator characters themselves (UUIDs,
 * ISO-8601 times) stay whole, and a binary key's leading salt byte (Apache Phoenix) is its own
 * component. Pure: the CLI reads the file.
 */

import { parseHex } from "../../keys/bytes.js";
import { KeySampleError } from "./advise-errors.js";
import { type SaltPrefixShape, saltByte } from "./salt-prefix.js";
import { binaryTimeShape } from "./time-shapes.js";

export type KeySampleFormat = "text" | "hex";

/** Separators tried, in order of preference when several split every key alike (NUL: binary keys' string terminator). */
export const SEPARATOR_CANDIDATES = [
  "\u0000",
  "#",
  "|",
  "_",
  ":",
  "/",
  ";",
  ",",
  "~",
  "$",
  "-",
  ".",
] as const;
/** A separator must split at least this share of the keys alike. */
const MIN_CONSISTENCY = 0.9;

export interface SplitKeySample {
  /** The separator, or undefined when the keys have none (one component each). */
  separator: string | undefined;
  /** Components of each key kept (the keys with the usual number of components), in sample order. */
  rows: string[][];
  /** Keys left out because they split into another number of components. */
  skipped: number;
  /** Components written right after the one before them, with no separator (the digits of `txn00001`). */
  glued: number[];
  /** The keys hold bytes outside printable ASCII (read from hex). */
  binary: boolean;
  /** A salt byte that leads every binary key (the first component of each row). */
  saltByte?: SaltPrefixShape;
}

/** Non-empty lines as keys; hex lines are decoded to bytes and read as Latin-1 so every byte is one character. */
export function parseKeyLines(text: string, format: KeySampleFormat): string[] {
  const keys: string[] = [];
  for (const [index, raw] of text.split("\n").entries()) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") continue;
    if (format === "text") {
      const unreadable = firstUnprintable(line);
      if (unreadable >= 0) {
        throw new KeySampleError(
          "unreadable",
          `key sample line ${index + 1}: character ${unreadable + 1} is not printable text (binary keys go one per line in hex, with --key-format hex)`,
          index + 1,
          unreadable + 1,
        );
      }
      keys.push(line);
      continue;
    }
    try {
      keys.push(parseHex(line.trim()).toString("latin1"));
    } catch (error) {
      throw new KeySampleError(
        "unreadable",
        `key sample line ${index + 1}: ${(error as Error).message}`,
        index + 1,
      );
    }
  }
  if (keys.length === 0)
    throw new KeySampleError("empty", "key sample: no keys (expected one row key per line)");
  return keys;
}

/**
 * The first character that is not text: a control character other than tab, or U+FFFD (what bytes
 * that are not UTF-8 became when the file was read as text); -1 when there is none.
 */
function firstUnprintable(line: string): number {
  for (let at = 0; at < line.length; at++) {
    const code = line.charCodeAt(at);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f || code === 0xfffd) return at;
  }
  return -1;
}

/**
 * Tokens that contain separator characters but are one value: UUIDs, ISO-8601 dates and times, and
 * reverse-domain host names (`com.example.www`: a top-level domain first).
 */
const ATOM =
  /(?<![0-9A-Za-z])(?:(?:com|org|net|edu|gov|mil|int|io|co|ai|app|dev|info|biz|[a-z]{2})(?:\.[a-z0-9-]+)+|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?)(?![0-9A-Za-z])/g;
const MASK_OFFSET = 0xe000;

/** Separator characters inside atoms become private-use characters, so splitting leaves atoms whole. */
const mask = (key: string) =>
  key.replace(ATOM, (atom) =>
    atom.replace(/[-:.]/g, (char) => String.fromCharCode(MASK_OFFSET + char.charCodeAt(0))),
  );
const unmask = (part: string) =>
  part.replace(/[\ue000-\ue07f]/g, (char) => String.fromCharCode(char.charCodeAt(0) - MASK_OFFSET));

function countOf(key: string, separator: string): number {
  let count = 0;
  for (let at = key.indexOf(separator); at >= 0; at = key.indexOf(separator, at + 1)) count++;
  return count;
}

/** The most common value and the share of entries that have it. */
function mode(values: number[]): { value: number; share: number } {
  const counts = new Map<number, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  let best = { value: 0, count: 0 };
  for (const [value, count] of counts) if (count > best.count) best = { value, count };
  return { value: best.value, share: best.count / values.length };
}

interface Split {
  separator: string;
  /** Components per key. */
  parts: number;
  /** Keys with more parts keep the rest in their last component (paths of varying depth). */
  mergeTail: boolean;
}

/**
 * The separator that splits (nearly) every key into the same number of parts; failing that, the
 * one that splits (nearly) every key into at least k ≥ 2 parts (the largest such k), the rest
 * staying in the last part (`com.example.www/a/b`: host, then path).
 */
function chooseSplit(masked: readonly string[]): Split | undefined {
  let best: (Split & { share: number }) | undefined;
  for (const separator of SEPARATOR_CANDIDATES) {
    const usual = mode(masked.map((key) => countOf(key, separator)));
    if (usual.value === 0 || usual.share < MIN_CONSISTENCY) continue;
    if (!best || usual.share > best.share)
      best = { separator, parts: usual.value + 1, mergeTail: false, share: usual.share };
  }
  if (best) return best;
  for (const separator of SEPARATOR_CANDIDATES) {
    const counts = masked.map((key) => countOf(key, separator)).sort((a, b) => a - b);
    const atLeast = counts[Math.floor((1 - MIN_CONSISTENCY) * counts.length)]!;
    if (atLeast > 0) return { separator, parts: atLeast + 1, mergeTail: true };
  }
  return undefined;
}

/** The separator that splits (nearly) every key alike; undefined when none does. */
export function detectKeySeparator(keys: readonly string[]): string | undefined {
  return chooseSplit(keys.map(mask))?.separator;
}

/**
 * Components that are one constant word and digits in every key (`txn00001`, `sensor-0042`) split
 * into the word and the digits, so the digits can be read as a counter or an id family; the
 * digits are marked as glued to the word (no separator between them in the real key).
 */
function splitWordDigits(rows: string[][]): { rows: string[][]; glued: number[] } {
  const width = rows[0]?.length ?? 0;
  const splits = Array.from({ length: width }, (_, column) => {
    const prefix = /^(\D+)\d+$/.exec(rows[0]![column]!)?.[1];
    const splittable =
      prefix !== undefined &&
      rows.every(
        (row) => row[column]!.startsWith(prefix) && /^\d+$/.test(row[column]!.slice(prefix.length)),
      ) &&
      rows.some((row) => row[column] !== rows[0]![column]);
    return splittable ? prefix : undefined;
  });
  const glued: number[] = [];
  let at = 0;
  for (const prefix of splits) {
    at += prefix === undefined ? 1 : 2;
    if (prefix !== undefined) glued.push(at - 1);
  }
  return {
    rows: rows.map((row) =>
      row.flatMap((part, column) => {
        const prefix = splits[column];
        return prefix === undefined ? [part] : [prefix, part.slice(prefix.length)];
      }),
    ),
    glued,
  };
}

function splitKey(masked: string, split: Split): string[] | undefined {
  const parts = masked.split(split.separator);
  if (parts.length === split.parts) return parts.map(unmask);
  if (!split.mergeTail || parts.length < split.parts) return undefined;
  const head = parts.slice(0, split.parts - 1);
  return [...head, parts.slice(split.parts - 1).join(split.separator)].map(unmask);
}

function splitKeys(
  keys: readonly string[],
  separator: string | undefined,
): { separator: string | undefined; rows: string[][]; kept: boolean[] } {
  const masked = keys.map(mask);
  const split: Split | undefined =
    separator === undefined
      ? chooseSplit(masked)
      : {
          separator,
          parts: mode(masked.map((key) => countOf(key, separator))).value + 1,
          mergeTail: false,
        };
  if (split === undefined)
    return { separator: undefined, rows: keys.map((key) => [key]), kept: keys.map(() => true) };
  const parts = masked.map((key) => splitKey(key, split));
  return {
    separator: split.separator,
    rows: parts.filter((row): row is string[] => row !== undefined),
    kept: parts.map((row) => row !== undefined),
  };
}

/** Bytes of a binary key's trailing big-endian time (Apache Phoenix's BIGINT or DATE as the last column: 8 bytes, sign bit flipped). */
const TIME_BYTES = 8;

export function splitKeySample(keys: readonly string[], separator?: string): SplitKeySample {
  const binary = keys.some((key) => /[^\x20-\x7e]/.test(key));
  const salt = binary ? saltByte(keys) : undefined;
  const unsalted = salt ? keys.map((key) => key.slice(1)) : keys;
  // A fixed-width time at the end of a binary key may hold any byte, NUL included: it is a component of its own.
  const time =
    binary &&
    unsalted.every((key) => key.length > TIME_BYTES) &&
    binaryTimeShape(unsalted.map((key) => key.slice(-TIME_BYTES))) !== undefined;
  // Phoenix ends the VARCHAR before a fixed-width column with NUL.
  const withoutTime = (key: string) => key.slice(0, -TIME_BYTES);
  const middle = time
    ? unsalted.map((key) =>
        withoutTime(key).endsWith("\u0000") ? withoutTime(key).slice(0, -1) : withoutTime(key),
      )
    : unsalted;
  const split = splitKeys(middle, separator);
  const keptKeys = keys.filter((_, k) => split.kept[k]);
  const { rows: parts, glued } = splitWordDigits(split.rows);
  const rows = parts.map((row, index) => [
    ...(salt ? [keptKeys[index]![0]!] : []),
    ...row,
    ...(time ? [keptKeys[index]!.slice(-TIME_BYTES)] : []),
  ]);
  return {
    separator: split.separator,
    rows,
    glued: salt ? glued.map((index) => index + 1) : glued,
    skipped: keys.length - rows.length,
    binary,
    ...(salt ? { saltByte: salt } : {}),
  };
}

/**
 * A sample of real row keys, one per line (text, or hex for binary keys), split into components on
 * the separator they share. Pure: the CLI reads the file.
 */

import { parseHex } from "../keys/bytes.js";
export type KeySampleFormat = "text" | "hex";

/** Separators tried, in order of preference when several split every key alike. */
export const SEPARATOR_CANDIDATES = ["#", "|", "_", ":", "/", ";", ",", "~", "$", "-", "."] as const;
/** A separator must split at least this share of the keys into the same number of parts. */
const MIN_CONSISTENCY = 0.9;

export interface SplitSample {
  /** The separator, or undefined when the keys have none (one component each). */
  separator: string | undefined;
  /** Components of each key kept (the keys with the usual number of components), in sample order. */
  rows: string[][];
  /** Keys left out because they split into another number of components. */
  skipped: number;
}

/** Non-empty lines as keys; hex lines are decoded to bytes and read as Latin-1 so every byte is one character. */
export function parseKeyLines(text: string, format: KeySampleFormat): string[] {
  const keys: string[] = [];
  for (const [index, raw] of text.split("\n").entries()) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") continue;
    if (format === "text") {
      keys.push(line);
      continue;
    }
    try {
      keys.push(parseHex(line.trim()).toString("latin1"));
    } catch (error) {
      throw new Error(`key sample line ${index + 1}: ${(error as Error).message}`);
    }
  }
  if (keys.length === 0) throw new Error("key sample: no keys (expected one row key per line)");
  return keys;
}

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

/** The separator that splits (nearly) every key into the same number of parts; undefined when none does. */
export function detectSeparator(keys: readonly string[]): string | undefined {
  let best: { separator: string; share: number } | undefined;
  for (const separator of SEPARATOR_CANDIDATES) {
    const usual = mode(keys.map((key) => countOf(key, separator)));
    if (usual.value === 0 || usual.share < MIN_CONSISTENCY) continue;
    if (!best || usual.share > best.share) best = { separator, share: usual.share };
  }
  return best?.separator;
}

/** Keys without a separator that are one constant prefix and digits (`txn00001`) split into the two. */
function splitPrefixedNumbers(keys: readonly string[]): string[][] | undefined {
  const prefix = /^(\D*)\d+$/.exec(keys[0]!)?.[1];
  if (prefix === undefined || prefix === "") return undefined;
  const rows = keys.map((key) =>
    key.startsWith(prefix) && /^\d+$/.test(key.slice(prefix.length))
      ? [prefix, key.slice(prefix.length)]
      : undefined,
  );
  return rows.every((row) => row !== undefined) ? (rows as string[][]) : undefined;
}

export function splitSample(keys: readonly string[], separator = detectSeparator(keys)): SplitSample {
  if (separator === undefined)
    return { separator, rows: splitPrefixedNumbers(keys) ?? keys.map((key) => [key]), skipped: 0 };
  const split = keys.map((key) => key.split(separator));
  const usual = mode(split.map((parts) => parts.length)).value;
  const rows = split.filter((parts) => parts.length === usual);
  return { separator, rows, skipped: keys.length - rows.length };
}

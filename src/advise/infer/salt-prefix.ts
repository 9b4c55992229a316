/**
 * A salt already in the key: a leading bucket number covering (nearly) all of 0..N−1 about evenly —
 * zero-padded decimal (the game-studio recipe's `061_player_…`), hex (`3f#…`), or one byte of a binary key
 * (Apache Phoenix's SALT_BUCKETS). Pure.
 */

export type SaltPrefixFormat = "decimal" | "hex" | "byte";

export interface SaltPrefixShape {
  format: SaltPrefixFormat;
  buckets: number;
  /** Characters the prefix takes. */
  width: number;
}

/**
 * Bucket numbers drawn evenly from 0..N−1: their N, else undefined. With n keys over N buckets an
 * even draw hits about N(1 − e^(−n/N)) of them, so the test holds for samples smaller than N too
 * (400 keys over 256 hex buckets hit ~202), as long as there are at least half as many keys as buckets.
 */
export function coveredBuckets(numbers: readonly number[], space?: number): number | undefined {
  const counts = new Map<number, number>();
  for (const n of numbers) counts.set(n, (counts.get(n) ?? 0) + 1);
  const largest = Math.max(...counts.keys()) + 1;
  // Hex prefixes use their whole range (00..ff) when the sample reaches its upper half.
  const buckets = space !== undefined && largest > space / 2 ? space : largest;
  const n = numbers.length;
  if (buckets < 2 || n < buckets / 2) return undefined;
  const expectedHit = buckets * (1 - Math.exp(-n / buckets));
  if (counts.size < 0.9 * expectedHit) return undefined;
  // No bucket far above an even draw's count (mean plus five standard deviations).
  const mean = n / buckets;
  const bound = mean + 5 * Math.sqrt(mean * (1 - 1 / buckets)) + 1;
  return [...counts.values()].every((count) => count <= bound) ? buckets : undefined;
}

function numbersOf(
  values: readonly string[],
): { format: SaltPrefixFormat; numbers: number[]; space?: number } | undefined {
  const width = values[0]!.length;
  if (width === 0 || width > 5 || !values.every((value) => value.length === width)) return undefined;
  if (values.every((value) => /^\d+$/.test(value))) return { format: "decimal", numbers: values.map(Number) };
  if (
    width <= 4 &&
    (values.every((v) => /^[0-9a-f]+$/.test(v)) || values.every((v) => /^[0-9A-F]+$/.test(v)))
  )
    return { format: "hex", numbers: values.map((value) => Number.parseInt(value, 16)), space: 16 ** width };
  return undefined;
}

/** A leading component that is a salt (decimal or hex digits): its shape, else undefined. */
export function saltPrefixShape(values: readonly string[]): SaltPrefixShape | undefined {
  const parsed = numbersOf(values);
  if (!parsed) return undefined;
  const buckets = coveredBuckets(parsed.numbers, parsed.space);
  return buckets === undefined ? undefined : { format: parsed.format, buckets, width: values[0]!.length };
}

/**
 * The first byte of binary keys (as Latin-1) when it is a salt byte: bucket numbers covering
 * 0..N−1, some of them unprintable (a text key's first character is not a salt byte).
 */
export function saltByte(keys: readonly string[]): SaltPrefixShape | undefined {
  if (!keys.every((key) => key.length > 1)) return undefined;
  const codes = keys.map((key) => key.charCodeAt(0));
  if (!codes.some((code) => code < 0x20 || code > 0x7e) || codes.some((code) => code > 0xff))
    return undefined;
  const buckets = coveredBuckets(codes);
  return buckets === undefined ? undefined : { format: "byte", buckets, width: 1 };
}

/**
 * Positions inside a key range, for a load spread between sampled keys: a key's place in `[a, b)`
 * is read as a base-256 fraction of the bytes after the two bounds' common prefix (six bytes: a
 * double holds 48 bits exactly), and a fraction maps back to a key. Tablets can then split between
 * sampled keys, as real tablets split between any two rows.
 */

const DIGITS = 6;

function commonPrefix(a: Buffer, b: Buffer): number {
  const length = Math.min(a.length, b.length);
  let index = 0;
  while (index < length && a[index] === b[index]) index++;
  return index;
}

function position(key: Buffer, from: number): number {
  let value = 0;
  let scale = 1 / 256;
  for (let index = from; index < from + DIGITS; index++) {
    value += (key[index] ?? 0) * scale;
    scale /= 256;
  }
  return value;
}

/** Where `key` lies in `[a, b)`: 0 at or before `a`, 1 at or after `b`, linear in between. */
export function keyFraction(a: Buffer, b: Buffer, key: Buffer): number {
  if (Buffer.compare(key, a) <= 0) return 0;
  if (Buffer.compare(key, b) >= 0) return 1;
  const from = commonPrefix(a, b);
  const low = position(a, from);
  const high = position(b, from);
  if (!(high > low)) return 0.5;
  return Math.min(1, Math.max(0, (position(key, from) - low) / (high - low)));
}

/**
 * A key strictly inside `(a, b)` at about `fraction` of the way, or null when no such key is
 * representable (the bounds are adjacent at six bytes' precision).
 */
export function keyAtFraction(a: Buffer, b: Buffer, fraction: number): Buffer | null {
  const from = commonPrefix(a, b);
  const low = position(a, from);
  const high = position(b, from);
  let value = low + Math.min(1, Math.max(0, fraction)) * (high - low);
  const digits = Buffer.alloc(DIGITS);
  for (let index = 0; index < DIGITS; index++) {
    value *= 256;
    const digit = Math.min(255, Math.floor(value));
    digits[index] = digit;
    value -= digit;
  }
  let end = DIGITS;
  while (end > 0 && digits[end - 1] === 0) end--;
  const key = Buffer.concat([a.subarray(0, from), digits.subarray(0, end)]);
  return Buffer.compare(key, a) > 0 && Buffer.compare(key, b) < 0 ? key : null;
}

/**
 * Six bytes of a key from `offset` as a number: among keys that agree before `offset`, ordered like
 * the keys wherever the numbers differ.
 */
export function keyPrefix(key: Buffer, offset = 0): number {
  let value = 0;
  for (let index = offset; index < offset + 6; index++) value = value * 256 + (key[index] ?? 0);
  return value;
}

/** How many leading bytes all `keys` share. */
export function sharedPrefixLength(keys: readonly Buffer[]): number {
  if (keys.length === 0) return 0;
  let low = keys[0]!;
  let high = keys[0]!;
  for (const key of keys) {
    if (Buffer.compare(key, low) < 0) low = key;
    else if (Buffer.compare(key, high) > 0) high = key;
  }
  return commonPrefix(low, high);
}

/**
 * Compares two keys given their prefixes: numbers decide most comparisons without a native call
 * (sorting thousands of keys with `Buffer.compare` alone was the simulator's hottest spot).
 */
export function compareKeys(a: Buffer, aPrefix: number, b: Buffer, bPrefix: number): number {
  return aPrefix !== bPrefix ? aPrefix - bPrefix : Buffer.compare(a, b);
}

/**
 * Lists of distinct keys in order, merged into one (a split check merges a tablet's sampled keys
 * from each load layer): each key compared with its neighbours only.
 */
export function mergeDistinct(lists: readonly (readonly Buffer[])[]): readonly Buffer[] {
  let merged: readonly Buffer[] = lists[0] ?? [];
  for (const list of lists.slice(1)) {
    const next: Buffer[] = [];
    let i = 0;
    let j = 0;
    while (i < merged.length && j < list.length) {
      const order = Buffer.compare(merged[i]!, list[j]!);
      if (order <= 0) next.push(merged[i++]!);
      else next.push(list[j++]!);
      if (order === 0) j++;
    }
    while (i < merged.length) next.push(merged[i++]!);
    while (j < list.length) next.push(list[j++]!);
    merged = next;
  }
  return merged;
}

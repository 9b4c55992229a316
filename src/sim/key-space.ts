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

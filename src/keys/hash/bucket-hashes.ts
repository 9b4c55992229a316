/**
 * The salt's bucket hashes: each reduces a slice of the already-encoded key to a bucket in
 * [0, N) — except where a compatibility preset must reproduce someone else's bug. They know
 * nothing of schemas; `salt.ts` names them for the spec's `salt.hash`.
 */
import { md5 } from "./digest.js";
import { xxHash32 } from "./xxhash32.js";

/** Reduces `bytes[start, end)` to a bucket in [0, buckets). */
export type BucketFunction = (bytes: Uint8Array, start: number, end: number, buckets: number) => number;

/** xxHash32, seed 0, read as unsigned 32-bit, mod N. */
export const xxh32Bucket: BucketFunction = (bytes, start, end, buckets) =>
  xxHash32(bytes, start, end) % buckets;

/** The game-studio recipe: the first 4 hex digits of the MD5 digest (its first two bytes, big-endian), mod N. */
export const md5Hex4Bucket: BucketFunction = (bytes, start, end, buckets) => {
  const digest = md5(bytes.subarray(start, end));
  return ((digest[0]! << 8) | digest[1]!) % buckets;
};

/** Java's `h = 31 * h + b` over signed bytes, starting at 1, with 32-bit overflow. */
export function javaBytesHash(bytes: Uint8Array, start: number, end: number): number {
  let hash = 1;
  for (let i = start; i < end; i++) hash = (Math.imul(31, hash) + ((bytes[i]! << 24) >> 24)) | 0;
  return hash;
}

/**
 * Apache Phoenix SaltingUtil: `(byte) Math.abs(hash % N)`, always in [0, N). Older Phoenix used
 * `Math.abs(hash) % N`, which is negative when hash = Integer.MIN_VALUE, so such rows got a salt
 * byte outside [0, N) that no bucket scan reads.
 */
export const phoenixBucket: BucketFunction = (bytes, start, end, buckets) =>
  Math.abs(javaBytesHash(bytes, start, end) % buckets);

/**
 * Sematext HBaseWD OneByteSimpleHash: `(byte) (Math.abs(hash) % N)` — reproduced with its bug:
 * for hash = Integer.MIN_VALUE, Java's Math.abs stays negative and the salt byte can be ≥ N.
 */
export const hbasewdBucket: BucketFunction = (bytes, start, end, buckets) =>
  hbasewdReduce(javaBytesHash(bytes, start, end), buckets);

/** HBaseWD's reduction of a Java int hash to its salt byte, with Java's int and byte semantics. */
export function hbasewdReduce(javaHash: number, buckets: number): number {
  const abs = Math.abs(javaHash) | 0; // Java: Math.abs(Integer.MIN_VALUE) == Integer.MIN_VALUE
  return (abs % buckets) & 0xff;
}

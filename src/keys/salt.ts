/**
 * Salt hashes and the fixed-length salt prefix. Every hash reads the already-encoded key bytes
 * after the salt prefix, from the first segment through the last salt field, and reduces to an
 * unsigned bucket in [0, N) — except where a compatibility preset must reproduce someone else's bug.
 */
import { hash as digest } from "node:crypto";
import { KeyDecodeError } from "./errors.js";
import type { SaltHash } from "./types.js";
import { xxHash32 } from "./xxhash32.js";

/** Reduces `bytes[start, end)` to a bucket in [0, buckets). */
export type BucketFunction = (bytes: Uint8Array, start: number, end: number, buckets: number) => number;

/** xxHash32, seed 0, read as unsigned 32-bit, mod N. */
export const xxh32Bucket: BucketFunction = (bytes, start, end, buckets) =>
  xxHash32(bytes, start, end) % buckets;

/** The game-studio recipe: the first 4 hex digits of the MD5 digest (its first two bytes, big-endian), mod N. */
export const md5Hex4Bucket: BucketFunction = (bytes, start, end, buckets) => {
  const md5 = digest("md5", bytes.subarray(start, end), "buffer");
  return ((md5[0]! << 8) | md5[1]!) % buckets;
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

export interface SaltHashInfo {
  bucket: BucketFunction;
  maxBuckets: number;
  /** The preset's salt is one raw byte in front of the key, in both layouts, as the original writes it. */
  oneRawByte: boolean;
  /** Fields hashed when the spec does not list them: `leading` = those before the first timestamp. */
  defaultFields: "leading" | "all";
}

export const SALT_HASHES: Record<SaltHash, SaltHashInfo> = {
  xxh32: { bucket: xxh32Bucket, maxBuckets: 65536, oneRawByte: false, defaultFields: "leading" },
  "md5-hex4": { bucket: md5Hex4Bucket, maxBuckets: 65536, oneRawByte: false, defaultFields: "leading" },
  phoenix: { bucket: phoenixBucket, maxBuckets: 256, oneRawByte: true, defaultFields: "all" },
  // Older Phoenix wrote HBaseWD's very formula, `(byte) (Math.abs(hash) % bucketNum)`.
  "phoenix-legacy": { bucket: hbasewdBucket, maxBuckets: 256, oneRawByte: true, defaultFields: "all" },
  hbasewd: { bucket: hbasewdBucket, maxBuckets: 256, oneRawByte: true, defaultFields: "all" },
};

/** One piece of a `salt.input` template: literal bytes, or the encoded bytes of a field. */
export type SaltInputPart = { literal: string } | { field: string };

/**
 * Parses a `salt.input` template: `{name}` is a field, `{{` and `}}` are literal braces. Throws
 * an Error saying what is wrong (the caller names the path).
 */
export function parseSaltInput(template: string): SaltInputPart[] {
  const parts: SaltInputPart[] = [];
  let literal = "";
  for (let i = 0; i < template.length; i++) {
    const char = template[i]!;
    if ((char === "{" || char === "}") && template[i + 1] === char) {
      literal += char;
      i++;
    } else if (char === "{") {
      const close = template.indexOf("}", i);
      const name = close < 0 ? "" : template.slice(i + 1, close);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        throw new Error(`"{" at ${i} does not start a field: write {field_name}, or {{ for a literal brace`);
      }
      if (literal) parts.push({ literal });
      literal = "";
      parts.push({ field: name });
      i = close;
    } else if (char === "}") {
      throw new Error(`"}" at ${i} closes nothing: write }} for a literal brace`);
    } else literal += char;
  }
  if (literal) parts.push({ literal });
  if (!parts.some((part) => "field" in part)) throw new Error("names no field; write e.g. {device_id}");
  return parts;
}

/** The fixed-length salt at the front of every key, so bucket `1` never prefixes bucket `10`. */
export interface SaltPrefix {
  readonly length: number;
  write(key: Uint8Array, bucket: number): void;
  /** Reads the bucket back; throws KeyDecodeError on a malformed prefix. */
  read(key: Uint8Array): number;
}

const DIGIT_0 = 0x30;

/** Text layout: `width` zero-padded decimal digits followed by the separator. */
export function decimalSaltPrefix(width: number, separator: number): SaltPrefix {
  return {
    length: width + 1,
    write(key, bucket) {
      for (let i = width - 1; i >= 0; i--) {
        key[i] = DIGIT_0 + (bucket % 10);
        bucket = (bucket / 10) | 0;
      }
      key[width] = separator;
    },
    read(key) {
      let bucket = 0;
      for (let i = 0; i < width; i++) {
        const digit = key[i]! - DIGIT_0;
        if (!(digit >= 0 && digit <= 9)) throw new KeyDecodeError(`salt: expected ${width} decimal digits`);
        bucket = bucket * 10 + digit;
      }
      if (key[width] !== separator) {
        throw new KeyDecodeError(`salt: expected the separator "${String.fromCharCode(separator)}" after it`);
      }
      return bucket;
    },
  };
}

/** Binary layout (and the one-byte presets): 1 byte for N ≤ 256, else 2 bytes big-endian. */
export function binarySaltPrefix(bytes: 1 | 2): SaltPrefix {
  return {
    length: bytes,
    write(key, bucket) {
      if (bytes === 2) key[0] = bucket >>> 8;
      key[bytes - 1] = bucket & 0xff;
    },
    read(key) {
      if (key.length < bytes) throw new KeyDecodeError(`salt: expected ${bytes} byte(s)`);
      return bytes === 2 ? (key[0]! << 8) | key[1]! : key[0]!;
    },
  };
}

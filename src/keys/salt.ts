/**
 * The salt of a key: the spec's hash presets (their bucket hashes are in `hash/`), the `salt.input`
 * template, and the fixed-length salt prefix. Every hash reads the already-encoded key bytes
 * after the salt prefix, from the first segment through the last salt field.
 */
import { KeyDecodeError, SchemaError } from "./errors.js";
import {
  type BucketFunction,
  hbasewdBucket,
  md5Hex4Bucket,
  phoenixBucket,
  xxh32Bucket,
} from "./hash/bucket-hashes.js";
import type { SaltHash } from "./types.js";

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
        throw new SchemaError(
          "salt.input",
          `"{" at ${i} does not start a field: write {field_name}, or {{ for a literal brace`,
          { problem: "salt-input", value: template, at: i },
        );
      }
      if (literal) parts.push({ literal });
      literal = "";
      parts.push({ field: name });
      i = close;
    } else if (char === "}") {
      throw new SchemaError("salt.input", `"}" at ${i} closes nothing: write }} for a literal brace`, {
        problem: "salt-input",
        value: template,
        at: i,
      });
    } else literal += char;
  }
  if (literal) parts.push({ literal });
  if (!parts.some((part) => "field" in part)) {
    throw new SchemaError("salt.input", "names no field; write e.g. {device_id}", {
      problem: "salt-input",
      value: template,
    });
  }
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
        if (!(digit >= 0 && digit <= 9))
          throw new KeyDecodeError(`salt: expected ${width} decimal digits`, { problem: "bad-salt", at: i });
        bucket = bucket * 10 + digit;
      }
      if (key[width] !== separator) {
        throw new KeyDecodeError(
          `salt: expected the separator "${String.fromCharCode(separator)}" after it`,
          {
            problem: "bad-salt",
            at: width,
          },
        );
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
      if (key.length < bytes)
        throw new KeyDecodeError(`salt: expected ${bytes} byte(s)`, { problem: "truncated", at: key.length });
      return bytes === 2 ? (key[0]! << 8) | key[1]! : key[0]!;
    },
  };
}

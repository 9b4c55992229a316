import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  hbasewdBucket,
  hbasewdReduce,
  javaBytesHash,
  md5Hex4Bucket,
  phoenixBucket,
  xxh32Bucket,
} from "./bucket-hashes.js";

const bytes = (text: string) => Buffer.from(text);
const TWO_32 = 2 ** 32;
const INT_MIN = -(2 ** 31);

// Golden vectors, also listed in docs/keys.md. xxHash32 values are the reference implementation's.
const VECTORS: { input: string; xxh32: number; md5hex4: number; java: number }[] = [
  { input: "", xxh32: 0x02cc5d05, md5hex4: 0xd41d, java: 1 },
  { input: "a", xxh32: 0x550d7456, md5hex4: 0x0cc1, java: 128 },
  { input: "abc", xxh32: 0x32d153ff, md5hex4: 0x9001, java: 126145 },
  { input: "device-42", xxh32: 0x6c9ea4ad, md5hex4: 0xa7d3, java: -171353484 },
  { input: "player_456789_purchase_20240315143022", xxh32: 0x3575724f, md5hex4: 0x59b1, java: -325381850 },
];

describe("salt hashes", () => {
  it.each(VECTORS)("match the golden vectors for $input", ({ input, xxh32, md5hex4, java }) => {
    const b = bytes(input);
    // mod 2^32 / 2^16 exposes the raw unsigned hash.
    expect(xxh32Bucket(b, 0, b.length, TWO_32)).toBe(xxh32);
    expect(md5Hex4Bucket(b, 0, b.length, 65536)).toBe(md5hex4);
    expect(javaBytesHash(b, 0, b.length)).toBe(java);
    expect(xxh32Bucket(b, 0, b.length, 16)).toBe(xxh32 % 16);
    expect(phoenixBucket(b, 0, b.length, 16)).toBe(Math.abs(java % 16));
  });

  it("md5-hex4 is the game-studio recipe: parseInt(md5 hex[0..4], 16) % N", () => {
    const input = "player_456789_purchase_20240315143022";
    const expected = Number.parseInt(createHash("md5").update(input).digest("hex").slice(0, 4), 16) % 100;
    expect(md5Hex4Bucket(bytes(input), 0, input.length, 100)).toBe(expected);
    expect(expected).toBe(61);
  });

  it("hashes only the given byte range", () => {
    const b = bytes("xxabcyy");
    expect(xxh32Bucket(b, 2, 5, TWO_32)).toBe(0x32d153ff);
    expect(javaBytesHash(b, 2, 5)).toBe(126145);
  });

  it("Java's hash reads bytes as signed", () => {
    expect(javaBytesHash(Uint8Array.of(0xff), 0, 1)).toBe(31 - 1);
    expect(javaBytesHash(Uint8Array.of(0x80, 0x7f), 0, 2)).toBe((31 * (31 - 128) + 127) | 0);
  });

  it("Phoenix's current formula stays in [0, N) even for Integer.MIN_VALUE", () => {
    // (byte) Math.abs(hash % N): -2147483648 % 10 = -8 → 8
    expect(Math.abs(INT_MIN % 10)).toBe(8);
    for (const n of [1, 2, 10, 31, 256]) {
      for (let i = 0; i < 200; i++) {
        const b = bytes(`k${i}`);
        const bucket = phoenixBucket(b, 0, b.length, n);
        expect(bucket).toBeGreaterThanOrEqual(0);
        expect(bucket).toBeLessThan(n);
      }
    }
  });

  it("HBaseWD's reduction reproduces its Math.abs(Integer.MIN_VALUE) bug", () => {
    expect(hbasewdReduce(-171353484, 16)).toBe(12);
    expect(hbasewdReduce(INT_MIN, 10)).toBe(248); // (byte) -8: a salt byte outside [0, 10)
    expect(hbasewdReduce(INT_MIN, 16)).toBe(0);
    const b = bytes("device-42");
    expect(hbasewdBucket(b, 0, b.length, 16)).toBe(12);
  });
});

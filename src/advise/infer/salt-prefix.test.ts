import { describe, expect, it } from "vitest";
import { coveredBuckets, saltByte, saltPrefixShape } from "./salt-prefix.js";

const even = (buckets: number, keys: number) => Array.from({ length: keys }, (_, k) => (k * 7919) % buckets);

describe("salts already in a key", () => {
  it("finds bucket numbers drawn evenly from 0..N−1, even from fewer keys than buckets", () => {
    expect(coveredBuckets(even(100, 600))).toBe(100);
    expect(coveredBuckets([1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3])).toBeUndefined(); // no bucket 0
    expect(coveredBuckets([...Array(40).fill(0), 1, 1])).toBeUndefined(); // not even
  });

  it("reads zero-padded decimal and hex prefixes", () => {
    expect(saltPrefixShape(even(100, 600).map((n) => String(n).padStart(3, "0")))).toEqual({
      format: "decimal",
      buckets: 100,
      width: 3,
    });
    expect(saltPrefixShape(even(256, 400).map((n) => n.toString(16).padStart(2, "0")))).toEqual({
      format: "hex",
      buckets: 256,
      width: 2,
    });
    expect(saltPrefixShape(["abc", "abd"])).toBeUndefined();
  });

  it("reads a binary key's leading salt byte, not a text key's first character", () => {
    const keys = even(16, 200).map((n) => `${String.fromCharCode(n)}dev-42`);
    expect(saltByte(keys)).toEqual({ format: "byte", buckets: 16, width: 1 });
    expect(saltByte(even(10, 200).map((n) => `${n}_x`))).toBeUndefined();
  });
});

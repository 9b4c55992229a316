import fc from "fast-check";
import { describe, expect, it } from "vitest";
import xxhash from "xxhash-wasm";
import { xxHash32 } from "./xxhash32.js";

const { h32Raw } = await xxhash();

describe("xxHash32", () => {
  it("matches the reference vectors", () => {
    expect(xxHash32(Buffer.from(""))).toBe(0x02cc5d05);
    expect(xxHash32(Buffer.from("a"))).toBe(0x550d7456);
    expect(xxHash32(Buffer.from("abc"))).toBe(0x32d153ff);
    expect(xxHash32(Buffer.from("Nobody inspects the spammish repetition"))).toBe(0xe2293b2f);
  });

  it("agrees with xxhash-wasm on any bytes, slice and seed", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 100 }),
        fc.nat(),
        fc.nat(),
        fc.integer({ min: 0, max: 0xffffffff }),
        (bytes, a, b, seed) => {
          const start = bytes.length === 0 ? 0 : a % (bytes.length + 1);
          const end = start + (bytes.length === 0 ? 0 : b % (bytes.length - start + 1));
          expect(xxHash32(bytes, start, end, seed)).toBe(h32Raw(bytes.subarray(start, end), seed) >>> 0);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

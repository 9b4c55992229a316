import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KeyReservoir, RecentKeys } from "./key-samples.js";

// Bytes across the whole range: above 127 a byte must still sort as the unsigned value it is.
const key = fc.uint8Array({ minLength: 1, maxLength: 5 }).map((bytes) => Buffer.from(bytes));
const bound = fc.uint8Array({ minLength: 0, maxLength: 5 }).map((bytes) => Buffer.from(bytes));

/** The keys in `[start, end)` in byte order, each once, as `Buffer.compare` has them. */
function expectedInside(keys: readonly Buffer[], start: Buffer, end: Buffer | null): Buffer[] {
  const inside = keys
    .filter((k) => Buffer.compare(k, start) >= 0 && (end === null || Buffer.compare(k, end) < 0))
    .sort(Buffer.compare);
  return inside.filter((k, i) => i === 0 || !k.equals(inside[i - 1]!));
}

describe("kept keys", () => {
  it("give the density of exactly the keys in a range, in byte order", () => {
    fc.assert(
      fc.property(fc.array(key, { maxLength: 40 }), bound, fc.option(bound), (keys, start, end) => {
        const recent = new RecentKeys(keys.length + 1);
        const reservoir = new KeyReservoir(keys.length + 1);
        for (const k of keys) {
          recent.add(k, 1);
          reservoir.add(k, 1);
        }
        const expected = expectedInside(keys, start, end);
        for (const density of [recent.density(start, end), reservoir.density(start, end)]) {
          // Every kept key is non-empty, so all lie strictly above the empty key.
          expect(density.keysInside(Buffer.alloc(0), null)).toEqual(expected);
        }
      }),
    );
  });

  it("keep the last keys only, and a reservoir replaces a key with its text", () => {
    const recent = new RecentKeys(2);
    for (const text of ["a", "b", "c"]) recent.add(Buffer.from(text), 1);
    expect(recent.density(Buffer.alloc(0), null).keysInside(Buffer.alloc(0), null)).toEqual([
      Buffer.from("b"),
      Buffer.from("c"),
    ]);
    const reservoir = new KeyReservoir(4);
    for (let i = 0; i < 200; i++) reservoir.add(Buffer.from([i]), 1);
    // Whatever it kept, its range filter agrees with the keys it holds.
    const kept = reservoir.density(Buffer.alloc(0), null).keysInside(Buffer.alloc(0), null);
    expect(kept).toHaveLength(4);
    expect(reservoir.density(Buffer.from([100]), null).keysInside(Buffer.alloc(0), null)).toEqual(
      kept.filter((k) => k[0]! >= 100),
    );
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ByteStringIndex } from "./byte-string-index.js";

/** Looks `bytes` up from inside a larger buffer, adding it when new; numbers as a Map of hex would give them. */
function numberAll(strings: readonly Uint8Array[]): { index: ByteStringIndex; numbers: number[] } {
  const index = new ByteStringIndex();
  const numbers = strings.map((bytes) => {
    const padded = Buffer.concat([Buffer.from([0xff, 0]), bytes, Buffer.from([1])]);
    const found = index.lookup(padded, 2, 2 + bytes.length);
    return found >= 0 ? found : index.add(padded, 2, 2 + bytes.length);
  });
  return { index, numbers };
}

function modelNumbers(strings: readonly Uint8Array[]): number[] {
  const model = new Map<string, number>();
  return strings.map((bytes) => {
    const hex = Buffer.from(bytes).toString("hex");
    if (!model.has(hex)) model.set(hex, model.size);
    return model.get(hex)!;
  });
}

describe("byte string index", () => {
  it("numbers distinct byte strings in order of first sight, equal bytes alike", () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 3, max: 2 }),
      fc.uint8Array({ maxLength: 40 }),
      fc.constantFrom(new Uint8Array(0), Uint8Array.of(0), Uint8Array.of(0, 0)),
    );
    fc.assert(
      fc.property(fc.array(bytes, { maxLength: 300 }), (strings) => {
        const { index, numbers } = numberAll(strings);
        expect(numbers).toEqual(modelNumbers(strings));
        expect(index.size).toBe(new Set(numbers).size);
      }),
      { numRuns: 300 },
    );
  });

  it("keeps every string findable as it grows past its first table and arena", () => {
    const strings = Array.from({ length: 5000 }, (_, n) => Buffer.from(`key-${n}-${"x".repeat(n % 50)}`));
    const { index, numbers } = numberAll([...strings, ...strings.slice().reverse()]);
    expect(numbers).toEqual(modelNumbers([...strings, ...strings.slice().reverse()]));
    expect(index.size).toBe(5000);
    const long = Buffer.alloc(100_000, 7);
    expect(index.lookup(long, 0, long.length)).toBe(-1);
    expect(index.add(long, 0, long.length)).toBe(5000);
    expect(index.lookup(Buffer.concat([Buffer.from("a"), long]), 1, 100_001)).toBe(5000);
  });
});

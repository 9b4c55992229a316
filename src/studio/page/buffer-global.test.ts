import { Buffer as PageBuffer } from "buffer";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import "./buffer-global.js";

/** Short arrays over few byte values, so equal prefixes and equal arrays come up often. */
const bytes = fc.uint8Array({ maxLength: 8, max: 3 });
const page = (array: Uint8Array) => PageBuffer.from(array);

describe("the worker's Buffer compares as Node's does", () => {
  it("Buffer.compare and equals, on its Buffers and on plain Uint8Arrays", () => {
    fc.assert(
      fc.property(bytes, bytes, (a, b) => {
        const node = Buffer.compare(a, b);
        expect(PageBuffer.compare(page(a), page(b))).toBe(node);
        expect(PageBuffer.compare(a, page(b))).toBe(node);
        expect(page(a).equals(b)).toBe(node === 0);
      }),
    );
  });

  it("buf.compare over any ranges in bounds", () => {
    const ranged = bytes.chain((source) =>
      bytes.chain((target) =>
        fc.tuple(
          fc.constant(source),
          fc.constant(target),
          fc.nat(target.length),
          fc.nat(target.length),
          fc.nat(source.length),
          fc.nat(source.length),
        ),
      ),
    );
    fc.assert(
      fc.property(ranged, ([source, target, start, end, sourceStart, sourceEnd]) => {
        expect(page(source).compare(page(target), start, end, sourceStart, sourceEnd)).toBe(
          Buffer.from(source).compare(target, start, end, sourceStart, sourceEnd),
        );
        expect(page(source).compare(target)).toBe(Buffer.from(source).compare(target));
      }),
    );
  });

  it("Buffer.from copies a Uint8Array or a Buffer into a Buffer of its own", () => {
    fc.assert(
      fc.property(bytes, (array) => {
        for (const source of [array, page(array)]) {
          const copy = PageBuffer.from(source);
          expect(PageBuffer.isBuffer(copy) && [...copy]).toEqual([...array]);
          copy.fill(9);
          expect([...source]).toEqual([...array]);
        }
      }),
    );
  });

  it("refuses what Node refuses: a range out of bounds, a target that is not bytes", () => {
    expect(() => page(Uint8Array.of(1)).compare(Uint8Array.of(1, 2), 0, 3)).toThrow(RangeError);
    expect(() => PageBuffer.compare(Uint8Array.of(1), "1" as unknown as Uint8Array)).toThrow(TypeError);
  });
});

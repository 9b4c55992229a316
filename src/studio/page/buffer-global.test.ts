import { Buffer as PageBuffer } from "buffer/index.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import "./buffer-global.js";

/** Short arrays over few byte values, so equal prefixes and equal arrays come up often. */
const bytes = fc.uint8Array({ maxLength: 8, max: 3 });
const page = (array: Uint8Array) => PageBuffer.from(array);

describe("the worker's Buffer compares as Node's does", () => {
  it("is the package's Buffer, not Node's (a bare `buffer` import in Node is Node's own)", () => {
    expect(PageBuffer).not.toBe(Buffer);
  });

  it("Buffer.compare and equals, on its Buffers and on plain Uint8Arrays", () => {
    fc.assert(
      fc.property(bytes, bytes, (a, b) => {
        const node = Buffer.compare(a, b);
        expect(PageBuffer.compare(page(a), page(b))).toBe(node);
        expect(PageBuffer.compare(a, page(b))).toBe(node);
        // buffer-global.ts widens equals to any Uint8Array, as Node's; the package's type says Buffer.
        expect(page(a).equals(b as PageBuffer)).toBe(node === 0);
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

  it("alloc, allocUnsafe and subarray make the package's Buffers, as Node's make Node's", () => {
    fc.assert(
      fc.property(bytes, fc.nat(8), fc.nat(8), (array, start, end) => {
        const zeros = PageBuffer.alloc(array.length);
        expect(PageBuffer.isBuffer(zeros) && zeros instanceof PageBuffer && [...zeros]).toEqual([
          ...Buffer.alloc(array.length),
        ]);
        const unsafe = PageBuffer.allocUnsafe(array.length);
        unsafe.set(array);
        expect(PageBuffer.isBuffer(unsafe) && unsafe.toString("hex")).toBe(
          Buffer.from(array).toString("hex"),
        );
        // The package declares subarray as Uint8Array's; isBuffer below checks it is a Buffer.
        const view = unsafe.subarray(start, end) as PageBuffer;
        const nodeView = Buffer.from(array).subarray(start, end);
        expect(PageBuffer.isBuffer(view) && view.toString("latin1")).toBe(nodeView.toString("latin1"));
        expect((view.subarray(1) as PageBuffer).toString("hex")).toBe(nodeView.subarray(1).toString("hex"));
        // A view, not a copy: writes through to the Buffer it views.
        view.fill(7);
        expect([...unsafe.subarray(start, end)]).toEqual([...view]);
        expect(PageBuffer.concat([unsafe, view, array]).toString("hex")).toBe(
          Buffer.concat([unsafe, view, array]).toString("hex"),
        );
      }),
    );
    expect(PageBuffer.alloc(3, 1).toString("hex")).toBe(Buffer.alloc(3, 1).toString("hex"));
    expect(PageBuffer.alloc(2, "ab").toString("hex")).toBe(Buffer.alloc(2, "ab").toString("hex"));
  });

  it("refuses what Node refuses: a range out of bounds, a target that is not bytes", () => {
    expect(() => page(Uint8Array.of(1)).compare(Uint8Array.of(1, 2), 0, 3)).toThrow(RangeError);
    expect(() => PageBuffer.compare(Uint8Array.of(1), "1" as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => PageBuffer.alloc(-1)).toThrow(RangeError);
    expect(() => PageBuffer.allocUnsafe(-1)).toThrow(RangeError);
  });
});

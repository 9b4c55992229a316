import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  MAX_ROW_RANGES_PER_REQUEST,
  MAX_ROW_SET_BYTES,
  rowSetBytes,
  rowSetChunks,
} from "./row-set-chunks.js";

describe("rowSetChunks", () => {
  it("keeps the ranges in order, each request within the range and byte caps", () => {
    const range = fc.record({
      start: fc.uint8Array({ minLength: 1, maxLength: 4097 }).map((bytes) => Buffer.from(bytes)),
      end: fc.option(
        fc.uint8Array({ minLength: 1, maxLength: 4097 }).map((bytes) => Buffer.from(bytes)),
        { nil: null },
      ),
    });
    fc.assert(
      fc.property(fc.array(range, { maxLength: 400 }), (ranges) => {
        const chunks = rowSetChunks(ranges);
        expect(chunks.flat()).toEqual(ranges);
        for (const chunk of chunks) {
          expect(chunk.length).toBeGreaterThan(0);
          expect(chunk.length).toBeLessThanOrEqual(MAX_ROW_RANGES_PER_REQUEST);
          expect(chunk.reduce((sum, r) => sum + rowSetBytes(r), 0)).toBeLessThanOrEqual(MAX_ROW_SET_BYTES);
        }
      }),
      { numRuns: 50 },
    );
  });

  it("sends a salted window over 16 or 128 buckets as one request", () => {
    const ranges = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        start: Buffer.from(`${i}#device-7#a`),
        end: Buffer.from(`${i}#device-7#b`),
      }));
    expect(rowSetChunks(ranges(16))).toHaveLength(1);
    expect(rowSetChunks(ranges(128))).toHaveLength(1);
    expect(rowSetChunks(ranges(129))).toHaveLength(2);
  });
});

import { describe, expect, it } from "vitest";
import { checkSampleCount, evenlySpaced, sampleSorted } from "./sample.js";

describe("key sampling", () => {
  it("spreads indexes over the length", () => {
    expect(evenlySpaced(10, 5)).toEqual([0, 2, 4, 6, 8]);
    expect(evenlySpaced(3, 5)).toEqual([0, 1, 2]);
    expect(evenlySpaced(0, 5)).toEqual([]);
    expect(() => checkSampleCount(-1)).toThrow(
      expect.objectContaining({ name: "StoreArgumentError", field: "count", value: -1 }),
    );
  });

  it("samples a long stream evenly in one pass", async () => {
    const keys = Array.from({ length: 10_000 }, (_, i) => Buffer.from(String(i).padStart(5, "0")));
    async function* chunks() {
      for (let i = 0; i < keys.length; i += 333) yield keys.slice(i, i + 333);
    }
    const sample = (await sampleSorted(chunks(), 10)).map((key) => Number(key.toString()));
    expect(sample).toHaveLength(10);
    for (const [i, value] of sample.entries()) expect(Math.abs(value - i * 1000)).toBeLessThan(1000);
    expect(await sampleSorted(chunks(), 0)).toEqual([]);
  });
});

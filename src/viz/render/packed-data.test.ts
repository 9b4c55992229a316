import { deflateRawSync, inflateRawSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { packData } from "./packed-data.js";
import { packData as packForBrowser } from "./packed-data-browser.js";

const unpack = (packed: string) => inflateRawSync(Buffer.from(packed, "base64")).toString("utf8");

/** Text made of a few pieces repeated in any order: what LZ77 matches, at short and long distances. */
const repetitive = (maxLength: number) =>
  fc
    .tuple(
      fc.array(fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 6 }),
      fc.array(fc.nat(), { maxLength }),
    )
    .map(([pieces, picks]) => picks.map((pick) => pieces[pick % pieces.length]).join(""));

describe("the heatmap page's packed data", () => {
  it("inflates back to the JSON, packed by Node or by the browser's encoder, from text or its UTF-8 bytes", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), (json) => {
        expect(unpack(packData(json))).toBe(json);
        expect(unpack(packForBrowser(json))).toBe(json);
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), (json) => {
        const bytes = new TextEncoder().encode(json);
        expect(packData(bytes)).toBe(packData(json));
        expect(packForBrowser(bytes)).toBe(packForBrowser(json));
      }),
    );
    expect(unpack(packForBrowser(""))).toBe("");
  });

  it("inflates back from the browser's matches: repeats, runs up to the longest match, past the 32 KiB window", () => {
    fc.assert(
      fc.property(repetitive(400), (json) => {
        expect(unpack(packForBrowser(json))).toBe(json);
      }),
    );
    fc.assert(
      fc.property(repetitive(20_000), fc.integer({ min: 1, max: 600 }), (json, run) => {
        const text = `${json}${"0".repeat(run)}${json}`;
        expect(unpack(packForBrowser(text))).toBe(text);
      }),
      { numRuns: 20 },
    );
    const random = fc.sample(fc.string({ unit: "binary", minLength: 40_000, maxLength: 40_000 }), 1)[0]!;
    const long = `${random}${"é".repeat(70_000)}${random}`;
    expect(unpack(packForBrowser(long))).toBe(long);
  });

  it("packs a heatmap's values (a hot band, a sweep, cold cells) within twice the size zlib makes", () => {
    const [rows, columns] = [200, 300];
    const cell = (row: number, column: number) =>
      row >= 40 && row < 60
        ? 1234.5
        : row === Math.floor((column * rows) / columns)
          ? 87.25
          : (row * 7) % 40 === 0
            ? 0.3333
            : 0;
    const values = Array.from({ length: rows * columns }, (_, i) => cell(i % rows, Math.floor(i / rows)));
    const json = JSON.stringify({ values, rows: Array.from({ length: rows }, (_, row) => `device#${row}`) });
    const zlibSize = deflateRawSync(json, { level: 9 }).length;
    const browserSize = Buffer.from(packForBrowser(json), "base64").length;
    expect(browserSize).toBeLessThan(json.length / 10);
    expect(browserSize).toBeLessThan(zlibSize * 2);
  });
});

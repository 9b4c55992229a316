import { describe, expect, it } from "vitest";
import { rasterizeText, textWidth } from "./bitmap-font.js";

function render(text: string): string[] {
  const rows = Array.from({ length: 7 }, () => Array.from({ length: textWidth(text) }, () => "."));
  rasterizeText(text, 0, 0, 1, (x, y) => {
    rows[y]![x] = "#";
  });
  return rows.map((row) => row.join(""));
}

describe("bitmap font", () => {
  it("draws every printable ASCII character within its 5×7 cell", () => {
    for (let code = 0x20; code < 0x7f; code++) {
      const pixels: [number, number][] = [];
      rasterizeText(String.fromCharCode(code), 0, 0, 1, (x, y) => pixels.push([x, y]));
      for (const [x, y] of pixels) expect(x < 5 && y < 7).toBe(true);
      if (code !== 0x20) expect(pixels.length).toBeGreaterThan(0);
    }
  });

  it("tells lower case from upper case and spaces characters one pixel apart", () => {
    expect(render("a")).not.toEqual(render("A"));
    expect(render("\u00e9")).toEqual(render("?"));
    expect(render("10")).toEqual([
      "..#....###.",
      ".##...#...#",
      "..#...#..##",
      "..#...#.#.#",
      "..#...##..#",
      "..#...#...#",
      ".###...###.",
    ]);
  });
});

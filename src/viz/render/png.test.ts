import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { prepareHeatmap } from "./layout.js";
import { renderPng } from "./png.js";
import { fixtureMatrix, HOT_ROW } from "./render.fixture.js";

describe("renderPng", () => {
  const matrix = fixtureMatrix();

  it("draws a decodable image of the asked size with the hot cell bright and hatched", () => {
    const image = PNG.sync.read(renderPng(matrix, { width: 800, height: 400 }));
    expect([image.width, image.height]).toEqual([800, 400]);
    const { layout } = prepareHeatmap(matrix, { width: 800, height: 400 });
    const pixel = (x: number, y: number) => [
      ...image.data.subarray((y * 800 + x) * 4, (y * 800 + x) * 4 + 3),
    ];
    const [top, bottom] = [layout.rowY[HOT_ROW]!, layout.rowY[HOT_ROW + 1]!];
    const [left, right] = [layout.columnX[15]!, layout.columnX[16]!];
    const cellPixels = [];
    for (let y = top; y < bottom; y++) for (let x = left; x < right; x++) cellPixels.push(pixel(x, y).join());
    expect(cellPixels).toContain("255,255,255");
    expect(cellPixels).toContain("0,230,255");
    // Before t=10 the same row is as quiet as the rest: dark, no hatch.
    const early = pixel(layout.columnX[2]! + 1, top + 1);
    expect(early.reduce((sum, channel) => sum + channel, 0)).toBeLessThan(400);
  });

  it("puts text in the margins (labels, ticks, legend)", () => {
    const image = PNG.sync.read(renderPng(matrix));
    const lit = (x0: number, x1: number, y0: number, y1: number) => {
      let count = 0;
      for (let y = y0; y < y1; y++)
        for (let x = x0; x < x1; x++) if (image.data[(y * 1000 + x) * 4]! > 150) count++;
      return count;
    };
    expect(lit(0, 140, 30, 556)).toBeGreaterThan(50);
    expect(lit(150, 870, 560, 600)).toBeGreaterThan(50);
    expect(lit(870, 1000, 20, 400)).toBeGreaterThan(50);
  });

  it("refuses a metric the data does not have", () => {
    expect(() => renderPng(matrix, { metric: "latency" })).toThrow(
      'metric "latency": not in this data (available: ops, reads, writes, bytes, cpu)',
    );
  });
});

import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { colorScale } from "./color-scale.js";
import { prepareHeatmap } from "./layout.js";
import { renderHeatmapPng } from "./png.js";
import { fixtureMatrix, HOT_ROW } from "./render.fixture.js";
import { laneColor } from "./saturation-lanes.js";

describe("renderHeatmapPng", () => {
  const matrix = fixtureMatrix();

  it("draws a decodable image of the asked size, the hot cell bright and untouched, saturation in the lanes", () => {
    const image = PNG.sync.read(renderHeatmapPng(matrix, { width: 800, height: 400 }));
    expect([image.width, image.height]).toEqual([800, 400]);
    const { layout } = prepareHeatmap(matrix, { width: 800, height: 400 });
    const pixel = (x: number, y: number) => [
      ...image.data.subarray((y * 800 + x) * 4, (y * 800 + x) * 4 + 3),
    ];
    const [top, bottom] = [layout.rowY[HOT_ROW]!, layout.rowY[HOT_ROW + 1]!];
    const [left, right] = [layout.columnX[15]!, layout.columnX[16]!];
    const cellPixels = new Set<string>();
    for (let y = top; y < bottom; y++) for (let x = left; x < right; x++) cellPixels.add(pixel(x, y).join());
    // Nothing is drawn over a cell: the saturated node's hot cell is all its colour.
    expect([...cellPixels]).toEqual(["255,255,255"]);
    // Before t=10 the same row is as quiet as the rest: dark.
    const early = pixel(layout.columnX[2]! + 1, top + 1);
    expect(early.reduce((sum, channel) => sum + channel, 0)).toBeLessThan(400);
    // The key lane: the hot row sat on a saturated node half the time, the others never.
    const lanes = layout.lanes!;
    expect(pixel(lanes.key.x + 2, top + 1)).toEqual(laneColor(0.5));
    expect(pixel(lanes.key.x + 2, layout.rowY[1]! + 1)).toEqual(laneColor(0));
    // The time lane: from t=10 one row of eight (its key share) sat on a saturated node.
    expect(pixel(layout.columnX[15]! + 1, lanes.time.y + 2)).toEqual(laneColor(1 / 8));
    expect(pixel(layout.columnX[2]! + 1, lanes.time.y + 2)).toEqual(laneColor(0));
  });

  it("draws on a scale it is given, so images of one run compare", () => {
    const fixedScale = colorScale([1, 1e6], "ops", { clipPercentile: 100 });
    const { layout, scale } = prepareHeatmap(matrix, { fixedScale });
    expect(scale).toBe(fixedScale);
    expect(layout.legendTicks[0]!.label).toBe("1M");
    const image = PNG.sync.read(renderHeatmapPng(matrix, { fixedScale }));
    const [x, y] = [layout.columnX[15]! + 1, layout.rowY[HOT_ROW]! + 1];
    // 50k ops/s is white on the fixture's own scale; on one up to 1M it is not.
    expect([...image.data.subarray((y * 1000 + x) * 4, (y * 1000 + x) * 4 + 3)]).not.toEqual([255, 255, 255]);
  });

  it("puts text in the margins (labels, ticks, legend)", () => {
    const image = PNG.sync.read(renderHeatmapPng(matrix));
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
    expect(() => renderHeatmapPng(matrix, { metric: "latency" })).toThrow(
      'metric "latency": not in this data (available: ops, reads, writes, bytes, cpu)',
    );
  });
});

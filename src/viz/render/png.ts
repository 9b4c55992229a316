/** Static heatmap as PNG, drawn pixel by pixel (pngjs) with the embedded bitmap font: no browser. */
import { PNG } from "pngjs";
import type { HeatMatrix } from "../matrix/heat-matrix.js";
import { GLYPH_HEIGHT, rasterizeText, textWidth } from "./bitmap-font.js";
import { PALETTE } from "./color-scale.js";
import { type HeatmapImageOptions, LANE_NOTE, prepareHeatmap } from "./layout.js";
import { laneColor } from "./saturation-lanes.js";

type Rgb = readonly [number, number, number];
const BACKGROUND: Rgb = [24, 24, 28];
const TEXT: Rgb = [220, 220, 225];
const AXIS: Rgb = [120, 120, 130];

class Canvas {
  readonly png: PNG;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.png = new PNG({ width, height });
    this.fill(0, 0, width, height, BACKGROUND);
  }

  pixel(x: number, y: number, [r, g, b]: Rgb): void {
    if (x < 0 || y < 0 || x >= this.width || y >= this.height) return;
    const offset = (y * this.width + x) * 4;
    const data = this.png.data;
    data[offset] = r;
    data[offset + 1] = g;
    data[offset + 2] = b;
    data[offset + 3] = 255;
  }

  fill(x: number, y: number, width: number, height: number, [r, g, b]: Rgb): void {
    const [left, right] = [Math.max(0, x), Math.min(this.width, x + width)];
    const [top, bottom] = [Math.max(0, y), Math.min(this.height, y + height)];
    const data = this.png.data;
    for (let py = top; py < bottom; py++) {
      for (
        let offset = (py * this.width + left) * 4, end = (py * this.width + right) * 4;
        offset < end;
        offset += 4
      ) {
        data[offset] = r;
        data[offset + 1] = g;
        data[offset + 2] = b;
        data[offset + 3] = 255;
      }
    }
  }

  text(
    text: string,
    x: number,
    y: number,
    color: Rgb,
    align: "left" | "right" | "center" = "left",
    scale = 1,
  ): void {
    const width = textWidth(text, scale);
    const left = align === "left" ? x : align === "right" ? x - width : x - Math.floor(width / 2);
    rasterizeText(text, left, y, scale, (px, py) => this.pixel(px, py, color));
  }
}

export function renderHeatmapPng(matrix: HeatMatrix, options: HeatmapImageOptions = {}): Buffer {
  const { layout, colors, saturation } = prepareHeatmap(matrix, options);
  const { plot, columnX, rowY } = layout;
  const canvas = new Canvas(layout.width, layout.height);
  const columns = matrix.time.columns;
  for (let row = 0; row < matrix.rows.length; row++) {
    for (let column = 0; column < columns; column++) {
      const cell = row * columns + column;
      const [x, y] = [columnX[column]!, rowY[row]!];
      const [width, height] = [columnX[column + 1]! - x, rowY[row + 1]! - y];
      canvas.fill(x, y, width, height, [colors[cell * 3]!, colors[cell * 3 + 1]!, colors[cell * 3 + 2]!]);
    }
  }
  const { lanes, legend } = layout;
  if (lanes && saturation) {
    saturation.byRow.forEach((share, row) => {
      canvas.fill(lanes.key.x, rowY[row]!, lanes.key.width, rowY[row + 1]! - rowY[row]!, laneColor(share));
    });
    saturation.byColumn.forEach((share, column) => {
      const x = columnX[column]!;
      canvas.fill(x, lanes.time.y, columnX[column + 1]! - x, lanes.time.height, laneColor(share));
    });
  }
  const half = Math.floor(GLYPH_HEIGHT / 2);
  canvas.text(layout.title, plot.x, 9, TEXT, "left", 2);
  canvas.fill(plot.x - 1, plot.y, 1, plot.height, AXIS);
  canvas.fill(plot.x, layout.timeAxisY, plot.width, 1, AXIS);
  for (const tick of layout.timeTicks) {
    canvas.fill(tick.at, layout.timeAxisY, 1, 5, AXIS);
    canvas.text(tick.label, tick.at, layout.timeAxisY + 8, TEXT, "center");
  }
  canvas.text(layout.timeLabel, plot.x + plot.width / 2, layout.height - 12, AXIS, "center");
  for (const tick of layout.keyTicks) {
    canvas.fill(plot.x - 6, tick.at, 5, 1, AXIS);
    canvas.text(tick.label, plot.x - 9, tick.at - half + 3, TEXT, "right");
  }
  for (let y = 0; y < legend.height; y++) {
    const step = Math.round((1 - y / (legend.height - 1)) * (PALETTE.length - 1));
    canvas.fill(legend.x, legend.y + y, legend.width, 1, PALETTE[step]!);
  }
  for (const tick of layout.legendTicks) {
    canvas.fill(legend.x + legend.width, tick.at, 3, 1, AXIS);
    canvas.text(tick.label, legend.x + legend.width + 5, tick.at - half, TEXT);
  }
  canvas.text(layout.legendLabel, legend.x, legend.y + legend.height + 10, AXIS);
  if (lanes) {
    canvas.fill(legend.x, legend.y + legend.height + 26, 10, 10, laneColor(1));
    LANE_NOTE.forEach((line, index) => {
      canvas.text(line, legend.x, legend.y + legend.height + 42 + index * 10, TEXT);
    });
  }
  // One fixed filter (Sub suits horizontal runs of cells) instead of trying all five per row: ~3× faster.
  return PNG.sync.write(canvas.png, { filterType: 1, colorType: 2, inputHasAlpha: true });
}

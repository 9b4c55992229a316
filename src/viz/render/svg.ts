/**
 * Static heatmap as SVG: the cells as one embedded PNG (a pixel per cell, scaled up without
 * smoothing: a vector rect per cell would be 100k+ elements), axes and labels as real SVG text.
 */
import { PNG } from "pngjs";
import type { HeatMatrix } from "../matrix/heat-matrix.js";
import { PALETTE } from "./color-scale.js";
import { escapeHtml } from "./escape-html.js";
import { type HeatmapImageOptions, LANE_NOTE, prepareHeatmap } from "./layout.js";
import { laneColor } from "./saturation-lanes.js";

function cellsPng(colors: Uint8Array, columns: number, rows: number): string {
  const png = new PNG({ width: columns, height: rows });
  for (let cell = 0; cell < columns * rows; cell++) {
    png.data.set(colors.subarray(cell * 3, cell * 3 + 3), cell * 4);
    png.data[cell * 4 + 3] = 255;
  }
  return PNG.sync.write(png).toString("base64");
}

export function renderHeatmapSvg(matrix: HeatMatrix, options: HeatmapImageOptions = {}): string {
  const { layout, colors, saturation } = prepareHeatmap(matrix, options);
  const { plot, legend } = layout;
  const columns = matrix.time.columns;
  const text = (x: number, y: number, content: string, attributes = "") =>
    `<text x="${x}" y="${y}"${attributes}>${escapeHtml(content)}</text>`;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${layout.width}" height="${layout.height}" viewBox="0 0 ${layout.width} ${layout.height}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="11" fill="#dcdce1">`,
    "<defs>",
    `<linearGradient id="palette" x1="0" y1="1" x2="0" y2="0">${PALETTE.filter((_, step) => step % 10 === 0)
      .map(([r, g, b], index) => `<stop offset="${index / 10}" stop-color="rgb(${r},${g},${b})"/>`)
      .join("")}</linearGradient></defs>`,
    `<rect width="100%" height="100%" fill="#18181c"/>`,
    text(plot.x, 20, layout.title, ' font-size="15"'),
    `<image x="${plot.x}" y="${plot.y}" width="${plot.width}" height="${plot.height}" preserveAspectRatio="none" style="image-rendering:pixelated" href="data:image/png;base64,${cellsPng(colors, columns, matrix.rows.length)}"/>`,
  ];
  const { lanes } = layout;
  const fill = (share: number) => `rgb(${laneColor(share).join(",")})`;
  if (lanes && saturation) {
    saturation.byRow.forEach((share, row) => {
      const [y, bottom] = [layout.rowY[row]!, layout.rowY[row + 1]!];
      if (bottom > y)
        parts.push(
          `<rect class="lane" x="${lanes.key.x}" y="${y}" width="${lanes.key.width}" height="${bottom - y}" fill="${fill(share)}"/>`,
        );
    });
    saturation.byColumn.forEach((share, column) => {
      const [x, right] = [layout.columnX[column]!, layout.columnX[column + 1]!];
      parts.push(
        `<rect class="lane" x="${x}" y="${lanes.time.y}" width="${right - x}" height="${lanes.time.height}" fill="${fill(share)}"/>`,
      );
    });
  }
  const axis = 'stroke="#787882"';
  parts.push(
    `<path d="M${plot.x - 0.5} ${plot.y}V${layout.timeAxisY + 0.5}H${plot.x + plot.width}" fill="none" ${axis}/>`,
  );
  for (const tick of layout.timeTicks) {
    const bottom = layout.timeAxisY;
    parts.push(`<path d="M${tick.at + 0.5} ${bottom}v5" ${axis}/>`);
    parts.push(text(tick.at, bottom + 17, tick.label, ' text-anchor="middle"'));
  }
  parts.push(
    text(
      plot.x + plot.width / 2,
      layout.height - 6,
      layout.timeLabel,
      ' text-anchor="middle" fill="#787882"',
    ),
  );
  for (const tick of layout.keyTicks) {
    parts.push(`<path d="M${plot.x - 6} ${tick.at + 0.5}h5" ${axis}/>`);
    parts.push(text(plot.x - 9, tick.at + 4, tick.label, ' text-anchor="end"'));
  }
  parts.push(
    `<rect x="${legend.x}" y="${legend.y}" width="${legend.width}" height="${legend.height}" fill="url(#palette)"/>`,
  );
  for (const tick of layout.legendTicks) {
    parts.push(`<path d="M${legend.x + legend.width} ${tick.at + 0.5}h3" ${axis}/>`);
    parts.push(text(legend.x + legend.width + 5, tick.at + 4, tick.label));
  }
  parts.push(text(legend.x, legend.y + legend.height + 18, layout.legendLabel, ' fill="#787882"'));
  if (lanes) {
    parts.push(
      `<rect x="${legend.x}" y="${legend.y + legend.height + 26}" width="10" height="10" fill="${fill(1)}"/>`,
    );
    LANE_NOTE.forEach((line, index) => {
      parts.push(text(legend.x, legend.y + legend.height + 50 + index * 13, line));
    });
  }
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}

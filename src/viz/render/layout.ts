/**
 * Where everything goes on a static heatmap (PNG and SVG share it): plot area, time ticks, key
 * prefix labels and the legend. Pure.
 */

import { displayKey } from "../input/key-text.js";
import {
  type HeatMatrix,
  hotCpuCells,
  METRIC_UNITS,
  type Metric,
  metricValues,
} from "../matrix/heat-matrix.js";
import { type ColorScale, colorOf, colorScale, formatValue, type ScaleOptions } from "./color-scale.js";

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Tick {
  /** Pixel position along the axis. */
  at: number;
  label: string;
}

export interface HeatmapLayout {
  width: number;
  height: number;
  title: string;
  plot: Rect;
  timeTicks: Tick[];
  timeLabel: string;
  keyTicks: Tick[];
  legend: Rect;
  legendTicks: Tick[];
  legendLabel: string;
  /** Pixel edges: column c spans columnX[c]..columnX[c+1]; row r spans rowY[r]..rowY[r+1]. */
  columnX: number[];
  rowY: number[];
}

export interface LayoutOptions {
  /** Whole image; default 1000 × 600 px. */
  width?: number;
  height?: number;
  title?: string;
}

const MARGIN = { left: 150, right: 130, top: 30, bottom: 44 };
const LABEL_CHARS = 23;
const MIN_LABEL_GAP = 11;
const NICE_TICK_S = [
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
];

function edges(count: number, start: number, length: number): number[] {
  return Array.from({ length: count + 1 }, (_, index) => start + Math.round((index * length) / count));
}

function truncate(label: string): string {
  return label.length > LABEL_CHARS ? `${label.slice(0, LABEL_CHARS - 1)}~` : label;
}

function timeText(s: number, epoch: boolean, spanS: number): string {
  if (epoch) {
    const iso = new Date(s * 1000).toISOString();
    return spanS > 86400 ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, spanS >= 600 ? 16 : 19);
  }
  if (s < 120) return `${+s.toFixed(1)}s`;
  if (s < 7200) return `${+(s / 60).toFixed(1)}m`;
  return `${+(s / 3600).toFixed(1)}h`;
}

function timeTicks(matrix: HeatMatrix, plot: Rect): Tick[] {
  const { startS, columnS, columns, epoch } = matrix.time;
  const spanS = columnS * columns;
  const step =
    NICE_TICK_S.find((candidate) => spanS / candidate <= 8) ?? Math.ceil(spanS / 8 / 86400) * 86400;
  const ticks: Tick[] = [];
  for (let s = Math.ceil(startS / step) * step; s <= startS + spanS + 1e-9; s += step) {
    ticks.push({
      at: plot.x + Math.round(((s - startS) / spanS) * plot.width),
      label: timeText(epoch ? s : s - startS, epoch, spanS),
    });
  }
  return ticks;
}

/**
 * Labels at the deepest prefix level whose groups all fit (else the outermost, thinned), or the
 * rows' start keys when keys have no prefix levels.
 */
function keyTicks(matrix: HeatMatrix, rowY: number[]): Tick[] {
  const rows = matrix.rows;
  const levels = rows[0]?.labels.length ?? 0;
  // A label names the row's path down to the level shown, e.g. `bucket 03/fleet-7`.
  const labelAt = (row: number, level: number) =>
    level < 0
      ? displayKey(rows[row]!.start)
      : rows[row]!.labels.slice(0, level + 1)
          .filter(Boolean)
          .join("/");
  const groupStarts = (level: number) =>
    rows.flatMap((_, row) =>
      row === 0 || level < 0 || labelAt(row, level) !== labelAt(row - 1, level) ? [row] : [],
    );
  const fits = (starts: number[]) =>
    starts.every((row, index) => index === 0 || rowY[row]! - rowY[starts[index - 1]!]! >= MIN_LABEL_GAP);
  let level = levels - 1;
  while (level > 0 && !fits(groupStarts(level))) level--;
  const ticks: Tick[] = [];
  let lastY = Number.NEGATIVE_INFINITY;
  for (const row of groupStarts(level)) {
    // The first row often starts at the empty key (the table's start): nothing to name.
    if (rowY[row]! - lastY < MIN_LABEL_GAP || labelAt(row, level) === "") continue;
    lastY = rowY[row]!;
    ticks.push({ at: rowY[row]!, label: truncate(labelAt(row, level)) });
  }
  return ticks;
}

function legendTicks(scale: ColorScale, metric: Metric, legend: Rect): Tick[] {
  const at = (unit: number) => legend.y + Math.round((1 - unit) * legend.height);
  const top = `${scale.clipped ? ">=" : ""}${formatValue(scale.high, metric)}`;
  if (scale.kind === "linear") {
    return [
      { at: at(1), label: top },
      { at: at(0.5), label: formatValue((scale.low + scale.high) / 2, metric) },
      { at: at(0), label: formatValue(scale.low, metric) },
    ];
  }
  return [
    { at: at(1), label: top },
    { at: at(0.5), label: formatValue(Math.sqrt(scale.low * scale.high), metric) },
    { at: at(0.04), label: formatValue(scale.low, metric) },
  ];
}

export function heatmapLayout(
  matrix: HeatMatrix,
  metric: Metric,
  scale: ColorScale,
  options: LayoutOptions = {},
): HeatmapLayout {
  const width = options.width ?? 1000;
  const height = options.height ?? 600;
  if (width < MARGIN.left + MARGIN.right + 50 || height < MARGIN.top + MARGIN.bottom + 50) {
    throw new Error(`size ${width}x${height}: expected at least 300x125 px`);
  }
  const plot = {
    x: MARGIN.left,
    y: MARGIN.top,
    width: width - MARGIN.left - MARGIN.right,
    height: height - MARGIN.top - MARGIN.bottom,
  };
  const legend = { x: plot.x + plot.width + 16, y: plot.y, width: 14, height: Math.min(plot.height, 240) };
  const rowY = edges(matrix.rows.length, plot.y, plot.height);
  return {
    width,
    height,
    title: options.title ?? `${metric} (${METRIC_UNITS[metric]}), ${scale.kind} scale`,
    plot,
    timeTicks: timeTicks(matrix, plot),
    timeLabel: matrix.time.epoch ? "time (UTC)" : "time since start",
    keyTicks: keyTicks(matrix, rowY),
    legend,
    legendTicks: legendTicks(scale, metric, legend),
    legendLabel: METRIC_UNITS[metric],
    columnX: edges(matrix.time.columns, plot.x, plot.width),
    rowY,
  };
}

export interface HeatmapImageOptions extends ScaleOptions, LayoutOptions {
  /** Default ops. */
  metric?: Metric;
}

/** Everything a static renderer draws: layout, scale, each cell's colour, and hot-CPU cells. */
export interface PreparedHeatmap {
  metric: Metric;
  scale: ColorScale;
  layout: HeatmapLayout;
  /** r, g, b per cell, row-major. */
  colors: Uint8Array;
  hot: Uint8Array;
  anyHot: boolean;
}

export function prepareHeatmap(matrix: HeatMatrix, options: HeatmapImageOptions = {}): PreparedHeatmap {
  const metric = options.metric ?? "ops";
  const values = metricValues(matrix, metric);
  const scale = colorScale(values, metric, options);
  const colors = new Uint8Array(values.length * 3);
  values.forEach((value, cell) => {
    colors.set(colorOf(scale, value), cell * 3);
  });
  const hot = hotCpuCells(matrix);
  return {
    metric,
    scale,
    layout: heatmapLayout(matrix, metric, scale, options),
    colors,
    hot,
    anyHot: hot.includes(1),
  };
}

export const HOT_CPU_NOTE = ["hatched:", "node CPU >= 90%"];
/** Pixels between the hatch's diagonal lines: sparse enough that the cell's colour still reads. */
export const HATCH_SPACING = 7;

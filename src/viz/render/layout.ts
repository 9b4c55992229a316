/**
 * Where everything goes on a static heatmap (PNG and SVG share it): plot area, time ticks, key
 * prefix labels, the colour bar and, for simulations, the node-CPU lanes beside the plot. Pure.
 */
import { displayKey } from "../../keys/key-text.js";
import {
  HEAT_METRIC_UNITS,
  type HeatMatrix,
  type HeatMetric,
  hotCpuCells,
  metricValues,
} from "../matrix/heat-matrix.js";
import { timeTicks as ticksOnClock } from "../matrix/time-axis.js";
import { type ColorScale, type ColorScaleOptions, colorOf, colorScale, scaleTicks } from "./color-scale.js";
import { saturationLanes } from "./saturation-lanes.js";

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
  /** Where the time ticks start (under the time lane when there is one). */
  timeAxisY: number;
  timeTicks: Tick[];
  timeLabel: string;
  keyTicks: Tick[];
  legend: Rect;
  legendTicks: Tick[];
  legendLabel: string;
  /** Node-CPU lanes (simulations only): one right of the plot per key row, one under it per column. */
  lanes?: { key: Rect; time: Rect };
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
const LANE = { gap: 3, size: 8 };
const LABEL_CHARS = 23;
const MIN_LABEL_GAP = 11;

function edges(count: number, start: number, length: number): number[] {
  return Array.from({ length: count + 1 }, (_, index) => start + Math.round((index * length) / count));
}

function truncate(label: string): string {
  return label.length > LABEL_CHARS ? `${label.slice(0, LABEL_CHARS - 1)}~` : label;
}

/** The same ticks and units the HTML page draws (both use `timeTicks` from the time axis). */
function timeTicks(matrix: HeatMatrix, plot: Rect): Tick[] {
  const { startS, columnS, columns, epoch } = matrix.time;
  const spanS = columnS * columns;
  return ticksOnClock(epoch ? startS : 0, spanS, epoch).map((tick) => ({
    at: plot.x + Math.round((tick.offsetS / spanS) * plot.width),
    label: tick.label,
  }));
}

/**
 * Labels at the deepest prefix level whose groups all fit (else the outermost, thinned), or the
 * rows' start keys when keys have no prefix levels.
 */
function keyTicks(matrix: HeatMatrix, rowY: number[]): Tick[] {
  const rows = matrix.rows;
  const levels = rows[0]?.labels.length ?? 0;
  // A label names the row's path down to the level shown, joined as the keys are: `bucket 03#fleet-7`.
  const labelAt = (row: number, level: number) =>
    level < 0
      ? displayKey(rows[row]!.start)
      : rows[row]!.labels.slice(0, level + 1)
          .filter(Boolean)
          .join(matrix.labelSeparator);
  const groupStarts = (level: number) =>
    rows.flatMap((_, row) =>
      row === 0 || level < 0 || labelAt(row, level) !== labelAt(row - 1, level) ? [row] : [],
    );
  const fits = (starts: number[]) =>
    starts.every((row, index) => index === 0 || rowY[row]! - rowY[starts[index - 1]!]! >= MIN_LABEL_GAP);
  let level = levels - 1;
  while (level > 0 && !fits(groupStarts(level))) level--;
  // One group (every key starts `order#`) says nothing about where the load is: the deepest level, thinned, does.
  if (groupStarts(level).length < 2) level = levels - 1;
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

export function heatmapLayout(
  matrix: HeatMatrix,
  metric: HeatMetric,
  scale: ColorScale,
  options: LayoutOptions = {},
): HeatmapLayout {
  const width = options.width ?? 1000;
  const height = options.height ?? 600;
  if (width < MARGIN.left + MARGIN.right + 50 || height < MARGIN.top + MARGIN.bottom + 50) {
    throw new Error(`size ${width}x${height}: expected at least 300x125 px`);
  }
  const laneSpace = matrix.values.cpu ? LANE.gap + LANE.size : 0;
  const plot = {
    x: MARGIN.left,
    y: MARGIN.top,
    width: width - MARGIN.left - MARGIN.right - laneSpace,
    height: height - MARGIN.top - MARGIN.bottom - laneSpace,
  };
  const right = plot.x + plot.width + laneSpace;
  const bottom = plot.y + plot.height + laneSpace;
  const legend = { x: right + 16, y: plot.y, width: 14, height: Math.min(plot.height, 240) };
  const rowY = edges(matrix.rows.length, plot.y, plot.height);
  return {
    width,
    height,
    title: options.title ?? `${metric} (${HEAT_METRIC_UNITS[metric]}), ${scale.kind} scale`,
    plot,
    timeAxisY: bottom,
    timeTicks: timeTicks(matrix, plot),
    timeLabel: matrix.time.epoch ? "time (UTC)" : "time since start",
    keyTicks: keyTicks(matrix, rowY),
    legend,
    legendTicks: scaleTicks(scale, metric).map(({ unit, label }) => ({
      at: legend.y + Math.round((1 - unit) * legend.height),
      label,
    })),
    legendLabel: HEAT_METRIC_UNITS[metric],
    ...(laneSpace
      ? {
          lanes: {
            key: { x: right - LANE.size, y: plot.y, width: LANE.size, height: plot.height },
            time: { x: plot.x, y: bottom - LANE.size, width: plot.width, height: LANE.size },
          },
        }
      : {}),
    columnX: edges(matrix.time.columns, plot.x, plot.width),
    rowY,
  };
}

export interface HeatmapImageOptions extends ColorScaleOptions, LayoutOptions {
  /** Default ops. */
  metric?: HeatMetric;
  /**
   * Draw on this colour scale instead of one fitted to this matrix: `writeHeatmaps` passes one
   * scale for every design of a run, so the same colour means the same load in every picture.
   */
  fixedScale?: ColorScale;
}

/** Everything a static renderer draws: layout, scale, each cell's colour, and the CPU lanes. */
export interface PreparedHeatmap {
  metric: HeatMetric;
  scale: ColorScale;
  layout: HeatmapLayout;
  /** r, g, b per cell, row-major. */
  colors: Uint8Array;
  /** Share of the time each row, and of the key space each column, sat on a node at ≥ 90 % CPU. */
  saturation?: { byRow: number[]; byColumn: number[] };
}

export function prepareHeatmap(matrix: HeatMatrix, options: HeatmapImageOptions = {}): PreparedHeatmap {
  const metric = options.metric ?? "ops";
  const values = metricValues(matrix, metric);
  const scale = options.fixedScale ?? colorScale(values, metric, options);
  const colors = new Uint8Array(values.length * 3);
  values.forEach((value, cell) => {
    colors.set(colorOf(scale, value), cell * 3);
  });
  const view = { r0: 0, r1: matrix.rows.length, c0: 0, c1: matrix.time.columns };
  return {
    metric,
    scale,
    layout: heatmapLayout(matrix, metric, scale, options),
    colors,
    ...(matrix.values.cpu
      ? {
          saturation: saturationLanes(
            hotCpuCells(matrix),
            matrix.rows.map((row) => row.keyShare),
            matrix.time.columns,
            view,
          ),
        }
      : {}),
  };
}

/** The legend's words for the lanes (PNG text has 5×7 glyphs: short lines). */
export const LANE_NOTE = ["cyan lanes:", "node CPU >= 90%", "right: % of time", "below: % of keys"];

/**
 * Values to colours: Key Visualizer's black → purple → red → yellow → white palette (101 steps, as
 * TiDB's), on a log or linear scale whose top is a percentile of the cells, so one outlier does not
 * darken the whole map. CPU is absolute: 0..100 % always, whatever the data.
 */
import type { HeatMatrix, HeatMetric } from "../matrix/heat-matrix.js";
import { rememberedSortedPositives, sortedPositives, valueAtRank } from "./positive-cells.js";

export type ColorScaleKind = "log" | "linear";

export interface ColorScaleOptions {
  /** Default: log, except linear for CPU. */
  scale?: ColorScaleKind;
  /** The colour scale tops out at this percentile of the non-zero cells; default 99. */
  clipPercentile?: number;
}

export interface ColorScale {
  kind: ColorScaleKind;
  /** Values at or below `low` are the darkest colour (0 is black); at or above `high`, white. */
  low: number;
  high: number;
  /** True when cells above `high` exist (the legend then says `≥ high`). */
  clipped: boolean;
}

const STOPS: readonly [number, number, number][] = [
  [0, 0, 0],
  [88, 24, 140],
  [214, 38, 38],
  [250, 200, 30],
  [255, 255, 255],
];
export const PALETTE_STEPS = 101;

/** PALETTE_STEPS colours as `[r, g, b]`, interpolated between the stops. */
export const PALETTE: readonly [number, number, number][] = Array.from(
  { length: PALETTE_STEPS },
  (_, step) => {
    const position = (step / (PALETTE_STEPS - 1)) * (STOPS.length - 1);
    const lower = Math.min(STOPS.length - 2, Math.floor(position));
    const fraction = position - lower;
    const [from, to] = [STOPS[lower]!, STOPS[lower + 1]!];
    return [0, 1, 2].map((channel) =>
      Math.round(from[channel]! + (to[channel]! - from[channel]!) * fraction),
    ) as [number, number, number];
  },
);

export function colorScale(
  values: ArrayLike<number>,
  metric: HeatMetric,
  options: ColorScaleOptions = {},
): ColorScale {
  return scaleOfCells([values], metric, options, sortedPositives);
}

/** One scale for `metric` over the cells of several matrices (the designs of a run, side by side). */
export function sharedScale(
  matrices: readonly HeatMatrix[],
  metric: HeatMetric,
  options: ColorScaleOptions = {},
): ColorScale {
  const cells: Float64Array[] = [];
  for (const matrix of matrices) {
    const values = matrix.values[metric];
    if (values) cells.push(values);
  }
  return scaleOfCells(cells, metric, options, rememberedSortedPositives);
}

/** The scale over all the lists' cells together; `sorted` gives one list's positive cells, ascending. */
function scaleOfCells<Cells extends ArrayLike<number>>(
  cells: readonly Cells[],
  metric: HeatMetric,
  options: ColorScaleOptions,
  sorted: (values: Cells) => Float64Array,
): ColorScale {
  const clipPercentile = options.clipPercentile ?? 99;
  if (!(clipPercentile > 0 && clipPercentile <= 100)) {
    throw new Error(`clipPercentile ${clipPercentile}: expected a number in (0, 100]`);
  }
  const kind = options.scale ?? (metric === "cpu" ? "linear" : "log");
  if (metric === "cpu")
    return { kind, low: 0, high: 1, clipped: cells.some((values) => someAbove(values, 1)) };
  const positives = cells.map(sorted).filter((list) => list.length > 0);
  const count = positives.reduce((sum, list) => sum + list.length, 0);
  const max = Math.max(0, ...positives.map((list) => list[list.length - 1]!));
  const high = count
    ? valueAtRank(positives, Math.min(count - 1, Math.ceil((clipPercentile / 100) * count) - 1))
    : 1;
  const low =
    kind === "log" ? Math.max(count ? Math.min(...positives.map((list) => list[0]!)) : high, high / 1e4) : 0;
  return { kind, low, high, clipped: max > high };
}

function someAbove(values: ArrayLike<number>, limit: number): boolean {
  for (let index = 0; index < values.length; index++) if (values[index]! > limit) return true;
  return false;
}

/** Position of `value` on the scale, 0..1 (0 for zero or no data). Self-contained: the HTML page inlines it. */
export function scaleUnit(scale: ColorScale, value: number): number {
  if (!(value > 0)) return 0;
  if (scale.high <= scale.low) return 1;
  const unit =
    scale.kind === "log"
      ? (Math.log(value) - Math.log(scale.low)) / (Math.log(scale.high) - Math.log(scale.low))
      : (value - scale.low) / (scale.high - scale.low);
  // A span too narrow for floating point (one load, summed in two orders) is one value: the top.
  if (Number.isNaN(unit)) return 1;
  // Non-zero cells stay visibly above black, so "some load" never reads as "none".
  return Math.min(1, Math.max(0.04, unit));
}

export function colorOf(scale: ColorScale, value: number): [number, number, number] {
  return PALETTE[Math.round(scaleUnit(scale, value) * (PALETTE_STEPS - 1))]!;
}

/** Compact numbers for ticks and tooltips: 950, 1.2k, 3.4M; CPU as a percentage, latency in ms. Self-contained. */
export function formatValue(value: number, metric: HeatMetric): string {
  if (metric === "cpu") return `${Math.round(value * 100)}%`;
  const suffix = metric === "latency" ? "ms" : "";
  const abs = Math.abs(value);
  for (const [size, unit] of [
    [1e9, "G"],
    [1e6, "M"],
    [1e3, "k"],
  ] as const) {
    if (abs >= size) return `${+(value / size).toPrecision(3)}${unit}${suffix}`;
  }
  return `${+value.toPrecision(3)}${suffix}`;
}

/**
 * The colour bar's ticks: its top (`>=` when cells exceed it), middle and bottom, as positions
 * 0..1 up the bar. Uses only `formatValue`: the HTML page inlines both, so PNG, SVG and page agree.
 */
export function scaleTicks(scale: ColorScale, metric: HeatMetric): { unit: number; label: string }[] {
  const top = { unit: 1, label: `${scale.clipped ? ">=" : ""}${formatValue(scale.high, metric)}` };
  if (scale.kind === "linear") {
    return [
      top,
      { unit: 0.5, label: formatValue((scale.low + scale.high) / 2, metric) },
      { unit: 0, label: formatValue(scale.low, metric) },
    ];
  }
  return [
    top,
    { unit: 0.5, label: formatValue(Math.sqrt(scale.low * scale.high), metric) },
    // The lowest non-zero cell sits at 0.04: zero alone is black.
    { unit: 0.04, label: formatValue(scale.low, metric) },
  ];
}

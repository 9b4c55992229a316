/**
 * The heatmap matrix: time columns × key rows of rates per second, per metric, and the options
 * that size it. Built by `LoadGrid` (fine key bins merged into rows); read by patterns and renderers.
 */
import type { KeySchema } from "../../keys/types.js";
import type { KeyPrefixOptions } from "./key-prefix.js";
import type { TimeAxis } from "./time-axis.js";

export interface HeatMatrixOptions extends KeyPrefixOptions {
  /** Key rows at most; default 1000 (Key Visualizer's size). */
  maxRows?: number;
  /** Time columns at most; default 240. */
  maxColumns?: number;
  /**
   * The key schema rows are named through (bucket, fields), without changing how rows merge;
   * default `schema`. Rows of keys it cannot read fall back to text or hex.
   */
  naming?: KeySchema;
}

export const DEFAULT_MAX_ROWS = 1000;
export const DEFAULT_MAX_COLUMNS = 240;

export const HEAT_METRICS = ["ops", "reads", "writes", "bytes", "latency", "cpu"] as const;
export type HeatMetric = (typeof HEAT_METRICS)[number];

export const HEAT_METRIC_UNITS: Record<HeatMetric, string> = {
  ops: "ops/s",
  reads: "rows read/s",
  writes: "rows written/s",
  bytes: "bytes/s",
  latency: "p99 ms",
  cpu: "node CPU",
};

/** Cells whose node's CPU is at or above this are marked, whatever the colour scale says. */
export const HOT_CPU = 0.9;

export interface HeatRow {
  start: Buffer;
  /** Exclusive; null is the end of the table. */
  end: Buffer | null;
  /** Hierarchical prefix labels of `start`, outermost first (decoded fields when a schema is known). */
  labels: string[];
  /** The row named through the key schema, when one is known: `b07 · acme-003751…–acme-003790…`. */
  name?: string;
  /**
   * Fraction of the key space the row covers; rows sum to 1; load / share = density. Measured in
   * stored data when the simulator reports it (`KeyRangeLoad.storedBytes`), else in fine bins —
   * which access logs cut from distinct keys, so bins measure keys there.
   */
  keyShare: number;
}

/**
 * Not changed once built: renderers remember what they derive from a matrix (its page data, its
 * sorted cells) by the matrix's and its values' identity.
 */
export interface HeatMatrix {
  time: TimeAxis;
  rows: HeatRow[];
  /** Per metric, `rows.length × time.columns` values, row-major (`row * columns + column`). */
  values: Partial<Record<HeatMetric, Float64Array>>;
  /** The prefix level rows never merge across (-1: none); labels above it are coarser. */
  barrierLevel: number;
  /**
   * What joins a row's labels into one (`order#000001000906`): the keys' own separator, so a label
   * reads as the key does; `|` for a binary-layout schema, whose keys have none.
   */
  labelSeparator: string;
}

export function heatCellValue(matrix: HeatMatrix, metric: HeatMetric, row: number, column: number): number {
  return matrix.values[metric]?.[row * matrix.time.columns + column] ?? 0;
}

/** Metrics this matrix has data for (latency only from logs with latencyMs, CPU only from simulations). */
export function availableHeatMetrics(matrix: HeatMatrix): HeatMetric[] {
  return HEAT_METRICS.filter((metric) => matrix.values[metric] !== undefined);
}

export function metricValues(matrix: HeatMatrix, metric: HeatMetric): Float64Array {
  const values = matrix.values[metric];
  if (!values) {
    throw new Error(
      `metric "${metric}": not in this data (available: ${availableHeatMetrics(matrix).join(", ")})`,
    );
  }
  return values;
}

/** 1 for cells whose node ran at or above HOT_CPU, else 0 (all 0 without CPU data). */
export function hotCpuCells(matrix: HeatMatrix): Uint8Array {
  const cpu = matrix.values.cpu;
  if (!cpu) return new Uint8Array(matrix.rows.length * matrix.time.columns);
  return Uint8Array.from(cpu, (value) => (value >= HOT_CPU ? 1 : 0));
}

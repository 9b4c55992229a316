/**
 * The matrix as the pattern rules read it: one metric's values, each row's share of the key space
 * and of the load, and densities (a row's rate divided by its key share), so a merged cold row does
 * not look hot for being wide. Pure.
 */
import type { HeatMatrix, HeatMetric } from "../matrix/heat-matrix.js";

export interface DensityGrid {
  rows: number;
  columns: number;
  /** Rate per unit of key space, row-major. */
  density: Float64Array;
  value: Float64Array;
  /** Key-space fraction of each row, and the midpoint position of each row in [0, 1]. */
  keyFraction: Float64Array;
  position: Float64Array;
  /** Each row's share of all the load over time. */
  loadShare: Float64Array;
  columnTotal: Float64Array;
  total: number;
  /** Columns with any load, and how many. */
  active: [number, number][];
  activeColumns: number;
}

export function densityGrid(matrix: HeatMatrix, metric: HeatMetric): DensityGrid {
  const rows = matrix.rows.length;
  const columns = matrix.time.columns;
  const value = matrix.values[metric] ?? new Float64Array(rows * columns);
  const keyFraction = new Float64Array(rows);
  const position = new Float64Array(rows);
  let before = 0;
  matrix.rows.forEach((row, index) => {
    keyFraction[index] = row.keyShare;
    position[index] = before + keyFraction[index]! / 2;
    before += keyFraction[index]!;
  });
  const density = new Float64Array(rows * columns);
  const columnTotal = new Float64Array(columns);
  const loadShare = new Float64Array(rows);
  let total = 0;
  for (let row = 0; row < rows; row++) {
    for (let column = 0; column < columns; column++) {
      const cell = row * columns + column;
      density[cell] = value[cell]! / matrix.rows[row]!.keyShare;
      columnTotal[column]! += value[cell]!;
      loadShare[row]! += value[cell]!;
      total += value[cell]!;
    }
  }
  if (total > 0) for (let row = 0; row < rows; row++) loadShare[row]! /= total;
  const active = runs(columns, (column) => columnTotal[column]! > 0);
  const activeColumns = active.reduce((sum, [first, last]) => sum + last - first + 1, 0);
  return {
    rows,
    columns,
    density,
    value,
    keyFraction,
    position,
    loadShare,
    columnTotal,
    total,
    active,
    activeColumns,
  };
}

/** Runs of consecutive indices for which `test` holds, as [first, last] pairs. */
export function runs(count: number, test: (index: number) => boolean): [number, number][] {
  const found: [number, number][] = [];
  for (let index = 0; index < count; index++) {
    if (!test(index)) continue;
    const last = found.at(-1);
    if (last && last[1] === index - 1) last[1] = index;
    else found.push([index, index]);
  }
  return found;
}

export function sumOver(from: number, to: number, value: (index: number) => number): number {
  let sum = 0;
  for (let index = from; index <= to; index++) sum += value(index);
  return sum;
}

export function percent(fraction: number): string {
  return `${Math.round(fraction * 100)} %`;
}

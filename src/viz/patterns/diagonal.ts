/**
 * Sequential diagonal: the hottest key moves monotonically with time (timestamps, counters): Key
 * Visualizer's diagonal. Pure.
 */
import { median } from "../../stats/median.js";
import type { DensityGrid } from "./density-grid.js";
import type { FindingWriter, PatternFinding } from "./finding.js";
import { RULES } from "./rules.js";

function spearman(xs: readonly number[], ys: readonly number[]): number {
  const rank = (values: readonly number[]) => {
    const order = values.map((value, index) => [value, index] as const).sort((a, b) => a[0] - b[0]);
    const ranks = new Array<number>(values.length);
    order.forEach(([, index], position) => {
      ranks[index] = position;
    });
    return ranks;
  };
  const rx = rank(xs);
  const ry = rank(ys);
  const n = xs.length;
  const mean = (n - 1) / 2;
  let cov = 0;
  let vx = 0;
  let vy = 0;
  for (let i = 0; i < n; i++) {
    cov += (rx[i]! - mean) * (ry[i]! - mean);
    vx += (rx[i]! - mean) ** 2;
    vy += (ry[i]! - mean) ** 2;
  }
  return vx && vy ? cov / Math.sqrt(vx * vy) : 0;
}

export function sequentialDiagonal(grid: DensityGrid, writer: FindingWriter): PatternFinding[] {
  const rule = RULES.diagonal;
  const columns: number[] = [];
  const positions: number[] = [];
  const peakRows: number[] = [];
  const concentrations: number[] = [];
  let activeColumns = 0;
  for (let column = 0; column < grid.columns; column++) {
    if (grid.columnTotal[column]! === 0) continue;
    activeColumns++;
    const densities = Array.from(
      { length: grid.rows },
      (_, row) => grid.density[row * grid.columns + column]!,
    );
    let peak = 0;
    for (let row = 1; row < grid.rows; row++) if (densities[row]! > densities[peak]!) peak = row;
    // A column without a distinct peak (flat load) says nothing about where writes are heading.
    if (densities[peak]! < rule.minPeakRatio * median(densities)) continue;
    let near = 0;
    for (let row = 0; row < grid.rows; row++) {
      if (Math.abs(grid.position[row]! - grid.position[peak]!) <= rule.window)
        near += grid.value[row * grid.columns + column]!;
    }
    columns.push(column);
    positions.push(grid.position[peak]!);
    peakRows.push(peak);
    concentrations.push(near / grid.columnTotal[column]!);
  }
  const firstColumn = columns[0];
  const lastColumn = columns.at(-1);
  if (firstColumn === undefined || lastColumn === undefined) return [];
  if (columns.length < Math.max(5, rule.minPeakedColumns * activeColumns)) return [];
  const concentration = median(concentrations);
  const correlation = spearman(columns, positions);
  const travel = Math.max(...positions) - Math.min(...positions);
  if (
    concentration < rule.minConcentration ||
    Math.abs(correlation) < rule.minCorrelation ||
    travel < rule.minTravel
  ) {
    return [];
  }
  return [
    writer.finding(
      {
        kind: "diagonal",
        correlation,
        travel,
        concentration,
        thresholds: {
          minCorrelation: rule.minCorrelation,
          minTravel: rule.minTravel,
          window: rule.window,
          minConcentration: rule.minConcentration,
        },
      },
      [Math.min(...peakRows), Math.max(...peakRows)],
      [firstColumn, lastColumn],
    ),
  ];
}

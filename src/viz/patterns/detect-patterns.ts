/**
 * Names what a heatmap shows, in words, with the keys, the time span and the rule that fired: the
 * patterns Key Visualizer's documentation teaches (hot band, diagonal, periodic bursts, sudden hot
 * range, vertical band, healthy spread), and for simulations what node CPU adds. Pure.
 */
import type { HeatMatrix, HeatMetric } from "../matrix/heat-matrix.js";
import { bursts } from "./bursts.js";
import { densityGrid } from "./density-grid.js";
import { sequentialDiagonal } from "./diagonal.js";
import { FindingWriter, type PatternFinding } from "./finding.js";
import { healthySpread } from "./healthy.js";
import { hotBands } from "./hot-band.js";
import { hotRows } from "./hot-row.js";
import { isSaturatedCluster, nodeSaturation, saturatedCluster, saturatedRanges } from "./saturation.js";
import { suddenHotRanges } from "./sudden.js";

/** Patterns found in `metric` (default ops), most telling first; empty when the load matches none. */
export function detectPatterns(matrix: HeatMatrix, metric: HeatMetric = "ops"): PatternFinding[] {
  const grid = densityGrid(matrix, metric);
  if (grid.total === 0 || grid.rows === 0) return [];
  const writer = new FindingWriter(matrix, metric);
  const saturation = nodeSaturation(matrix, grid);
  const cluster = saturation !== undefined && isSaturatedCluster(saturation);
  // A moving hot spot trips the band, sudden and burst rules too: the diagonal explains them all.
  const diagonal = sequentialDiagonal(grid, writer);
  const moving = diagonal.length > 0;
  const bands = moving ? [] : hotBands(grid, writer, cluster ? undefined : saturation);
  // A moving hot spot saturates one node, which also holds the whole history it left behind: that
  // is the diagonal's doing, not a cluster too small. Saturated nodes with a bright band are that
  // band's doing; only without one are the ranges on them named.
  const saturated =
    saturation === undefined || moving
      ? []
      : cluster
        ? saturatedCluster(saturation, grid, writer)
        : bands.length > 0
          ? []
          : saturatedRanges(saturation, grid, writer);
  const sudden = moving ? [] : suddenHotRanges(grid, writer);
  // A row hot for minutes, where no band or sudden hot range names it already.
  const named = [...bands, ...sudden];
  const covered = (finding: PatternFinding) =>
    named.some((other) => finding.firstRow >= other.firstRow && finding.lastRow <= other.lastRow);
  const rows = moving ? [] : hotRows(grid, writer).filter((finding) => !covered(finding));
  const found = [
    ...bands,
    ...rows,
    ...saturated,
    ...diagonal,
    ...sudden,
    ...(moving ? [] : bursts(grid, writer)),
  ];
  return found.length ? found : healthySpread(grid, writer);
}

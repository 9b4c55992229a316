/**
 * What node CPU (simulations only) says that colour cannot: where ranges sit on nodes at ≥ 90 % CPU
 * (Google's hottest-node guidance). Saturated nodes across nearly the whole key space are a cluster
 * too small for the load, which no key fixes; saturated nodes under an even load per key are
 * tablets unevenly spread over the nodes. Pure.
 */
import { median } from "../../stats/median.js";
import { type HeatMatrix, HOT_CPU, hotCpuCells } from "../matrix/heat-matrix.js";
import { type DensityGrid, runs, sumOver } from "./density-grid.js";
import type { FindingWriter, PatternFinding } from "./finding.js";
import { RULES } from "./rules.js";

export interface NodeSaturation {
  /** Rows on a node at ≥ HOT_CPU in ≥ minColumns of the active columns. */
  hotRows: [number, number][];
  isHot: (row: number) => boolean;
  /** Key-space share of those rows. */
  keyFraction: number;
  /** Share of the active columns in which any range sat on a node at ≥ HOT_CPU. */
  timeShare: number;
  /** Median CPU of the other rows' nodes; undefined when every row sits on a saturated node. */
  otherCpu: number | undefined;
  /** First and last active column. */
  span: [number, number];
}

/** Undefined without CPU data, or when no range sits on a saturated node for most of the run. */
export function nodeSaturation(matrix: HeatMatrix, grid: DensityGrid): NodeSaturation | undefined {
  const cpu = matrix.values.cpu;
  const firstActive = grid.active[0];
  const lastActive = grid.active.at(-1);
  if (!cpu || firstActive === undefined || lastActive === undefined) return undefined;
  const rule = RULES.hotNodes;
  const hot = hotCpuCells(matrix);
  const hotColumns = (row: number) => sumOver(0, grid.columns - 1, (c) => hot[row * grid.columns + c]!);
  const isHotRow = Array.from(
    { length: grid.rows },
    (_, row) => hotColumns(row) >= rule.minColumns * grid.activeColumns,
  );
  const hotRows = runs(grid.rows, (row) => isHotRow[row]!);
  if (hotRows.length === 0) return undefined;
  let saturatedColumns = 0;
  for (let column = 0; column < grid.columns; column++) {
    if (grid.columnTotal[column]! === 0) continue;
    for (let row = 0; row < grid.rows; row++) {
      if (hot[row * grid.columns + column]) {
        saturatedColumns++;
        break;
      }
    }
  }
  return {
    hotRows,
    isHot: (row) => isHotRow[row]!,
    keyFraction: hotRows.reduce(
      (sum, [first, last]) => sum + sumOver(first, last, (row) => grid.keyFraction[row]!),
      0,
    ),
    timeShare: saturatedColumns / grid.activeColumns,
    otherCpu: otherRowsCpu(grid, cpu, isHotRow),
    span: [firstActive[0], lastActive[1]],
  };
}

/**
 * Nearly the whole key space on saturated nodes, and the rest's nodes busy too (Google's 70 %
 * average): one saturated node that holds most of the data (a time-first key's history) is not a
 * cluster too small.
 */
function otherRowsCpu(
  grid: DensityGrid,
  cpu: Float32Array | Float64Array,
  isHotRow: boolean[],
): number | undefined {
  const others = Array.from({ length: grid.rows }, (_, row) => row).filter((row) => !isHotRow[row]);
  if (others.length === 0) return undefined;
  return median(others.map((row) => median(cpu.subarray(row * grid.columns, (row + 1) * grid.columns))));
}

export function isSaturatedCluster(saturation: NodeSaturation): boolean {
  const rule = RULES.hotNodes;
  const { keyFraction, otherCpu } = saturation;
  return (
    keyFraction >= rule.clusterKeyFraction && (otherCpu === undefined || otherCpu >= rule.clusterOtherCpu)
  );
}

export function saturatedCluster(
  saturation: NodeSaturation,
  grid: DensityGrid,
  writer: FindingWriter,
): PatternFinding[] {
  const rule = RULES.hotNodes;
  return [
    writer.finding(
      {
        kind: "saturated-cluster",
        keyShare: saturation.keyFraction,
        ...(saturation.otherCpu === undefined ? {} : { otherCpu: saturation.otherCpu }),
        thresholds: {
          minKeyShare: rule.clusterKeyFraction,
          hotCpu: HOT_CPU,
          minColumns: rule.minColumns,
          minOtherCpu: rule.clusterOtherCpu,
        },
      },
      [0, grid.rows - 1],
      saturation.span,
    ),
  ];
}

/**
 * Ranges on saturated nodes when no band is brighter than the rest: the tablets of one range land
 * on several nodes, so runs separated by small gaps are joined, and the widest few are named.
 */
export function saturatedRanges(
  saturation: NodeSaturation,
  grid: DensityGrid,
  writer: FindingWriter,
): PatternFinding[] {
  const rule = RULES.hotNodes;
  // Every range on a saturated node is a saturated cluster (isSaturatedCluster), never uneven placement.
  const { otherCpu } = saturation;
  if (otherCpu === undefined) return [];
  const maxGap = Math.max(2, Math.round(rule.maxGapRows * grid.rows));
  const joined: [number, number][] = [];
  for (const band of saturation.hotRows) {
    const last = joined.at(-1);
    if (last && band[0] - last[1] - 1 <= maxGap) last[1] = band[1];
    else joined.push([band[0], band[1]]);
  }
  return joined
    .map((band) => ({
      band,
      keys: sumOver(band[0], band[1], (row) => (saturation.isHot(row) ? grid.keyFraction[row]! : 0)),
    }))
    .sort((a, b) => b.keys - a.keys)
    .slice(0, rule.maxBands)
    .map(({ band, keys }) =>
      writer.finding(
        {
          kind: "saturated-range",
          keyShare: keys,
          otherCpu,
          maxGapRows: maxGap,
          thresholds: {
            hotCpu: HOT_CPU,
            minColumns: rule.minColumns,
            bandMinContrast: RULES.hotBand.withSaturatedNodes.minContrast,
          },
        },
        band,
        saturation.span,
      ),
    );
}

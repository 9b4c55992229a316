/**
 * Sustained hot bands: Key Visualizer's "horizontal bright band", a persistent hot key range (seed
 * 003's "one contiguous dark band"). The band is the contiguous run of rows carrying the most load
 * above its share of the key space, so the band named is the band that is bright. Pure.
 */
import { HOT_CPU } from "../matrix/heat-matrix.js";
import { type DensityGrid, sumOver } from "./density-grid.js";
import type { FindingWriter, PatternFinding } from "./finding.js";
import { RULES } from "./rules.js";
import type { NodeSaturation } from "./saturation.js";

interface ExcessBand {
  rows: [number, number];
  /** Share of the load and of the key space; load minus keys is the excess. */
  load: number;
  keys: number;
  /** Load per key in the band over load per key in the rest (Infinity when the rest is idle). */
  contrast: number;
}

function contrastOf(load: number, keys: number): number {
  if (keys >= 1) return 1;
  const rest = (1 - load) / (1 - keys);
  return rest > 0 ? load / keys / rest : Number.POSITIVE_INFINITY;
}

/** The maximum-sum run of (load share − key share) over rows `from..to` (Kadane), if any is positive. */
function mostExcess(grid: DensityGrid, from: number, to: number): ExcessBand | undefined {
  let best = 0;
  let found: [number, number] | undefined;
  let sum = 0;
  let first = from;
  for (let row = from; row <= to; row++) {
    const excess = grid.loadShare[row]! - grid.keyFraction[row]!;
    if (sum <= 0) {
      sum = excess;
      first = row;
    } else sum += excess;
    if (sum > best + 1e-12) {
      best = sum;
      found = [first, row];
    }
  }
  if (!found) return undefined;
  const load = sumOver(found[0], found[1], (row) => grid.loadShare[row]!);
  const keys = sumOver(found[0], found[1], (row) => grid.keyFraction[row]!);
  return { rows: found, load, keys, contrast: contrastOf(load, keys) };
}

/** The run carrying the most load above its key share, then likewise on either side of it; most excess first. */
function excessBands(grid: DensityGrid): ExcessBand[] {
  const found: ExcessBand[] = [];
  const pending: [number, number][] = [[0, grid.rows - 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [from, to] = next;
    if (from > to) continue;
    const band = mostExcess(grid, from, to);
    if (!band) continue;
    found.push(band);
    pending.push([from, band.rows[0] - 1], [band.rows[1] + 1, to]);
  }
  return found.sort((a, b) => b.load - b.keys - (a.load - a.keys));
}

/** Share of the active columns in which the band's load per key is ≥ minColumnContrast× the rest's. */
function sustainedShare(grid: DensityGrid, band: ExcessBand): number {
  let sustained = 0;
  for (let column = 0; column < grid.columns; column++) {
    if (grid.columnTotal[column]! === 0) continue;
    const load =
      sumOver(band.rows[0], band.rows[1], (row) => grid.value[row * grid.columns + column]!) /
      grid.columnTotal[column]!;
    if (contrastOf(load, band.keys) >= RULES.hotBand.minColumnContrast) sustained++;
  }
  return sustained / Math.max(1, grid.activeColumns);
}

/**
 * Bands of ≥ minContrast× the rest's load per key, carrying ≥ minShare of the load on ≤
 * maxKeyFraction of the key space, hot in ≥ minColumns of the active columns. Where nodes are
 * saturated (but not everywhere), the CPU is the evidence and the band may be wider and less
 * contrasted: it names where the load is that saturates them.
 */
export function hotBands(
  grid: DensityGrid,
  writer: FindingWriter,
  saturation: NodeSaturation | undefined,
): PatternFinding[] {
  const rule = RULES.hotBand;
  const minContrast = saturation ? rule.withSaturatedNodes.minContrast : rule.minContrast;
  const maxKeyFraction = saturation ? rule.withSaturatedNodes.maxKeyFraction : rule.maxKeyFraction;
  const findings: PatternFinding[] = [];
  for (const band of excessBands(grid)) {
    if (findings.length === rule.maxBands) break;
    if (band.contrast < minContrast || band.load < rule.minShare || band.keys > maxKeyFraction) continue;
    const sustained = sustainedShare(grid, band);
    if (sustained < rule.minColumns) continue;
    findings.push(
      writer.finding(
        {
          kind: "hot-band",
          keyShare: band.keys,
          loadShare: band.load,
          contrast: band.contrast,
          sustainedShare: sustained,
          ...(saturation ? { saturatedNodes: { timeShare: saturation.timeShare, hotCpu: HOT_CPU } } : {}),
          thresholds: {
            minShare: rule.minShare,
            maxKeyFraction,
            minContrast,
            minColumnContrast: rule.minColumnContrast,
            minColumns: rule.minColumns,
          },
        },
        band.rows,
        [0, grid.columns - 1],
      ),
    );
  }
  return findings;
}

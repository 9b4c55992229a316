/** Healthy fine-grained spread: Key Visualizer's "fine-grained mix", when no other pattern fired. Pure. */
import type { DensityGrid } from "./density-grid.js";
import type { FindingWriter, PatternFinding } from "./finding.js";
import { RULES } from "./rules.js";

export function healthySpread(grid: DensityGrid, writer: FindingWriter): PatternFinding[] {
  const rule = RULES.healthy;
  const rows = Array.from({ length: grid.rows }, (_, row) => {
    const share = grid.loadShare[row]!;
    return { share, keyFraction: grid.keyFraction[row]!, density: share / grid.keyFraction[row]! };
  }).sort((a, b) => b.density - a.density);
  const coldest = rows.at(-1);
  if (coldest === undefined) return [];
  let keyFraction = 0;
  let share = 0;
  for (const row of rows) {
    if (keyFraction >= rule.topKeyFraction) break;
    keyFraction += row.keyFraction;
    share += row.share;
  }
  // Density at a key-weighted percentile: a wide warm band next to cold ranges is not "fine-grained".
  const densityAt = (fraction: number) => {
    let covered = 0;
    for (const row of rows) {
      covered += row.keyFraction;
      if (covered >= fraction) return row.density;
    }
    return coldest.density;
  };
  const ratio = densityAt(0.1) / Math.max(densityAt(0.9), 1e-12);
  if (share > rule.maxTopShare || ratio > rule.maxDensityRatio) return [];
  return [
    writer.finding(
      {
        kind: "healthy",
        keyShare: keyFraction,
        share,
        densityRatio: ratio,
        thresholds: { maxTopShare: rule.maxTopShare, maxDensityRatio: rule.maxDensityRatio },
      },
      [0, grid.rows - 1],
      [0, grid.columns - 1],
    ),
  ];
}

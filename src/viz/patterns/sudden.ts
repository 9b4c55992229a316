/** Sudden hot range: a key range quiet for a while, then hot and staying hot. Pure. */
import { median } from "../../stats/median.js";
import { type DensityGrid, runs, sumOver } from "./density-grid.js";
import type { FindingWriter, PatternFinding } from "./finding.js";
import { RULES } from "./rules.js";

/** Onset column of a row that turns hot and stays hot, or -1. */
function onsetOf(grid: DensityGrid, row: number): number {
  const rule = RULES.sudden;
  const density = (column: number) => grid.density[row * grid.columns + column]!;
  const firstAllowed = Math.max(1, Math.ceil(rule.minQuietColumns * grid.columns));
  let best = -1;
  let bestRatio: number = rule.minRatio;
  let before = sumOver(0, firstAllowed - 1, density);
  let after = sumOver(firstAllowed, grid.columns - 1, density);
  for (let onset = firstAllowed; onset <= grid.columns - rule.minHotColumns; onset++) {
    const meanBefore = before / onset;
    const meanAfter = after / (grid.columns - onset);
    const ratio = meanAfter / Math.max(meanBefore, 1e-12);
    if (meanAfter > 0 && ratio >= bestRatio) {
      let hot = 0;
      for (let column = onset; column < grid.columns; column++) if (density(column) >= meanAfter / 2) hot++;
      if (hot >= rule.minSustained * (grid.columns - onset)) {
        best = onset;
        bestRatio = ratio;
      }
    }
    before += density(onset);
    after -= density(onset);
  }
  return best;
}

export function suddenHotRanges(grid: DensityGrid, writer: FindingWriter): PatternFinding[] {
  const rule = RULES.sudden;
  const onsets = Array.from({ length: grid.rows }, (_, row) => onsetOf(grid, row));
  const findings: PatternFinding[] = [];
  for (const band of runs(grid.rows, (row) => onsets[row]! >= 0)) {
    // A column: the median of an even count of onsets may fall between two (and index no column).
    const onset = Math.round(median(onsets.slice(band[0], band[1] + 1)));
    let bandLoad = 0;
    let allLoad = 0;
    for (let column = onset; column < grid.columns; column++) {
      allLoad += grid.columnTotal[column]!;
      bandLoad += sumOver(band[0], band[1], (row) => grid.value[row * grid.columns + column]!);
    }
    const share = bandLoad / Math.max(allLoad, 1e-12);
    if (share < rule.minShare) continue;
    findings.push(
      writer.finding(
        {
          kind: "sudden-hot-range",
          share,
          thresholds: { minRatio: rule.minRatio, minSustained: rule.minSustained, minShare: rule.minShare },
        },
        band,
        [onset, grid.columns - 1],
      ),
    );
  }
  return findings;
}

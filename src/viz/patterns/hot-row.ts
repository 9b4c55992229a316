/**
 * A hot row or narrow key range: one that carries at least a tenth of the load for at least five
 * minutes, however short that is against the whole log (a row read hard for ten minutes of an
 * hour is a white line on the page, too brief for a sustained band). Pure; the log's own key is
 * named afterwards, from the records (viz/hot-keys.ts).
 */
import { type DensityGrid, sumOver } from "./density-grid.js";
import type { FindingWriter, PatternFinding } from "./finding.js";
import { RULES } from "./rules.js";

/** The longest run of consecutive columns in which `row` carries the share the rule asks for. */
function longestHotRun(grid: DensityGrid, row: number): [number, number] | undefined {
  const rule = RULES.hotRow;
  let best: [number, number] | undefined;
  let first = -1;
  for (let column = 0; column <= grid.columns; column++) {
    const total = column < grid.columns ? grid.columnTotal[column]! : 0;
    const share = total > 0 ? grid.value[row * grid.columns + column]! / total : 0;
    const hot = share >= rule.minShare && share >= rule.minContrast * grid.keyFraction[row]!;
    if (hot && first < 0) first = column;
    if (!hot && first >= 0) {
      if (!best || column - 1 - first > best[1] - best[0]) best = [first, column - 1];
      first = -1;
    }
  }
  return best;
}

/** Rows carrying ≥ minShare of each column's load for ≥ minDurationS, adjacent rows hot together as one range. */
export function hotRows(grid: DensityGrid, writer: FindingWriter): PatternFinding[] {
  const rule = RULES.hotRow;
  const minColumns = Math.max(1, Math.ceil(rule.minDurationS / writer.columnS));
  const found: PatternFinding[] = [];
  let row = 0;
  while (row < grid.rows && found.length < rule.maxRows) {
    const run = grid.keyFraction[row]! <= rule.maxKeyFraction ? longestHotRun(grid, row) : undefined;
    if (!run || run[1] - run[0] + 1 < minColumns) {
      row++;
      continue;
    }
    // A narrow range: the next rows hot over the same columns join it, within the key share allowed.
    let last = row;
    let keys = grid.keyFraction[row]!;
    while (last + 1 < grid.rows && keys + grid.keyFraction[last + 1]! <= rule.maxKeyFraction) {
      const next = longestHotRun(grid, last + 1);
      if (!next || next[1] < run[0] || next[0] > run[1]) break;
      last++;
      keys += grid.keyFraction[last]!;
    }
    const load = sumOver(run[0], run[1], (column) =>
      sumOver(row, last, (each) => grid.value[each * grid.columns + column]!),
    );
    const total = sumOver(run[0], run[1], (column) => grid.columnTotal[column]!);
    const share = total > 0 ? load / total : 0;
    found.push(
      writer.finding(
        {
          kind: "hot-row",
          keyShare: keys,
          share,
          durationS: (run[1] - run[0] + 1) * writer.columnS,
          thresholds: {
            minShare: rule.minShare,
            minContrast: rule.minContrast,
            minDurationS: rule.minDurationS,
          },
        },
        [row, last],
        run,
      ),
    );
    row = last + 1;
  }
  return found;
}

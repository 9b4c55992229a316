/**
 * Bursts along time: periodic jobs (Key Visualizer's "alternating along time") and single
 * full-height vertical bands (a client, batch or network event). Pure.
 */
import { median } from "../../stats/median.js";
import { type DensityGrid, runs } from "./density-grid.js";
import type { FindingWriter, PatternFinding } from "./finding.js";
import { RULES } from "./rules.js";

/** Periodic bursts (≥ 3 evenly spaced) or single full-height vertical bands. */
export function bursts(grid: DensityGrid, writer: FindingWriter): PatternFinding[] {
  const rule = RULES.bursts;
  const typical = median(grid.columnTotal);
  if (typical === 0) return [];
  const isBurst = (column: number) => grid.columnTotal[column]! >= rule.minColumnRatio * typical;
  const events = runs(grid.columns, isBurst);
  const [firstEvent] = events;
  const lastEvent = events.at(-1);
  if (firstEvent === undefined || lastEvent === undefined) return [];
  // Rows hot during bursts: density in burst columns at least twice their density elsewhere.
  const elevated = (columnsOf: (column: number) => boolean) => {
    const rows: boolean[] = [];
    for (let row = 0; row < grid.rows; row++) {
      let inside = 0;
      let insideCount = 0;
      let outside = 0;
      let outsideCount = 0;
      for (let column = 0; column < grid.columns; column++) {
        const density = grid.density[row * grid.columns + column]!;
        if (columnsOf(column)) {
          inside += density;
          insideCount++;
        } else if (!isBurst(column)) {
          outside += density;
          outsideCount++;
        }
      }
      rows.push(inside / Math.max(1, insideCount) >= 2 * (outside / Math.max(1, outsideCount)) && inside > 0);
    }
    return rows;
  };
  const extent = (rows: boolean[]): { band: [number, number]; fraction: number } => {
    const first = rows.indexOf(true);
    const last = rows.lastIndexOf(true);
    const fraction = rows.reduce((sum, hot, row) => sum + (hot ? grid.keyFraction[row]! : 0), 0);
    return { band: first < 0 ? [0, grid.rows - 1] : [first, last], fraction };
  };
  const starts = events.map(([first]) => first);
  const spacings = starts.slice(1).map((start, index) => start - starts[index]!);
  const meanSpacing = spacings.reduce((sum, spacing) => sum + spacing, 0) / Math.max(1, spacings.length);
  const variation =
    Math.sqrt(
      spacings.reduce((sum, spacing) => sum + (spacing - meanSpacing) ** 2, 0) / Math.max(1, spacings.length),
    ) / Math.max(1e-9, meanSpacing);
  if (events.length >= rule.minPeriodicEvents && variation <= rule.maxSpacingVariation) {
    const { band, fraction } = extent(elevated(isBurst));
    return [
      writer.finding(
        {
          kind: "periodic",
          bursts: events.length,
          periodS: meanSpacing * writer.columnS,
          spacingVariation: variation,
          keyShare: fraction,
          thresholds: {
            minPeriodicEvents: rule.minPeriodicEvents,
            minColumnRatio: rule.minColumnRatio,
            maxSpacingVariation: rule.maxSpacingVariation,
          },
        },
        band,
        [firstEvent[0], lastEvent[1]],
      ),
    ];
  }
  const findings: PatternFinding[] = [];
  for (const event of events) {
    const inEvent = (column: number) => column >= event[0] && column <= event[1];
    const { fraction } = extent(elevated(inEvent));
    if (fraction < rule.minFullHeight) continue;
    findings.push(
      writer.finding(
        {
          kind: "vertical-band",
          keyShare: fraction,
          thresholds: { minColumnRatio: rule.minColumnRatio, minFullHeight: rule.minFullHeight },
        },
        [0, grid.rows - 1],
        event,
      ),
    );
  }
  return findings;
}

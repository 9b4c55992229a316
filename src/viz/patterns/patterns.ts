/**
 * Names what a heatmap shows, in words, with the key range, the time span and the rule that fired:
 * the patterns Key Visualizer's documentation teaches (hot band, diagonal, periodic bursts, sudden
 * hot range, vertical band, healthy spread). Pure; works on densities (a row's rate divided by its
 * share of the key space) so merged cold rows do not look hot.
 */

import { median } from "../../stats/median.js";
import { displayKey } from "../input/key-text.js";
import { type HeatMatrix, HOT_CPU, hotCpuCells, METRIC_UNITS, type Metric } from "../matrix/heat-matrix.js";

export type PatternKind =
  | "hot-band"
  | "diagonal"
  | "periodic"
  | "sudden-hot-range"
  | "vertical-band"
  | "saturated-cluster"
  | "healthy";

export interface PatternFinding {
  kind: PatternKind;
  /** One sentence for people, naming the key range and the time span. */
  summary: string;
  /** The rule that fired, with the measured numbers. */
  rule: string;
  /** Rows `firstRow..lastRow` of the matrix; keys `start` to `end` (exclusive, null = end of table). */
  firstRow: number;
  lastRow: number;
  start: Buffer;
  end: Buffer | null;
  /** Columns `firstColumn..lastColumn`, and their time span in the matrix's seconds. */
  firstColumn: number;
  lastColumn: number;
  fromS: number;
  toS: number;
}

/** The thresholds each rule uses; exported so docs and tests name the same numbers. */
export const RULES = {
  hotBand: {
    minLoadToKeyRatio: 5,
    minShare: 0.25,
    maxKeyFraction: 0.15,
    minColumnShare: 0.15,
    minColumns: 0.8,
  },
  diagonal: {
    window: 0.05,
    minPeakRatio: 3,
    minPeakedColumns: 0.5,
    minConcentration: 0.4,
    minCorrelation: 0.8,
    minTravel: 0.3,
  },
  bursts: { minColumnRatio: 2.5, minPeriodicEvents: 3, maxSpacingVariation: 0.3, minFullHeight: 0.7 },
  sudden: { minRatio: 5, minQuietColumns: 0.1, minHotColumns: 3, minSustained: 0.7, minShare: 0.2 },
  healthy: { topKeyFraction: 0.1, maxTopShare: 0.25, maxDensityRatio: 4 },
  /** Simulations: ranges whose node ran at ≥ HOT_CPU (Google's 90 % hottest-node guidance). */
  hotNodes: { minColumns: 0.8, clusterKeyFraction: 0.8, maxGapRows: 0.05, maxBands: 3 },
} as const;

interface Grid {
  rows: number;
  columns: number;
  /** Rate per fine bin, row-major. */
  density: Float64Array;
  value: Float64Array;
  /** Key-space fraction of each row, and the midpoint position of each row in [0, 1]. */
  keyFraction: Float64Array;
  position: Float64Array;
  columnTotal: Float64Array;
  total: number;
}

function toGrid(matrix: HeatMatrix, metric: Metric): Grid {
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
  let total = 0;
  for (let row = 0; row < rows; row++) {
    for (let column = 0; column < columns; column++) {
      const cell = row * columns + column;
      density[cell] = value[cell]! / matrix.rows[row]!.keyShare;
      columnTotal[column]! += value[cell]!;
      total += value[cell]!;
    }
  }
  return { rows, columns, density, value, keyFraction, position, columnTotal, total };
}

function percent(fraction: number): string {
  return `${Math.round(fraction * 100)} %`;
}

/** Runs of consecutive indices for which `test` holds, as [first, last] pairs. */
function runs(count: number, test: (index: number) => boolean): [number, number][] {
  const found: [number, number][] = [];
  for (let index = 0; index < count; index++) {
    if (!test(index)) continue;
    const last = found.at(-1);
    if (last && last[1] === index - 1) last[1] = index;
    else found.push([index, index]);
  }
  return found;
}

function sumOver(from: number, to: number, value: (index: number) => number): number {
  let sum = 0;
  for (let index = from; index <= to; index++) sum += value(index);
  return sum;
}

class Describer {
  constructor(
    private readonly matrix: HeatMatrix,
    private readonly metric: Metric,
  ) {}

  get columnS(): number {
    return this.matrix.time.columnS;
  }

  finding(
    kind: PatternKind,
    what: string,
    rule: string,
    [firstRow, lastRow]: [number, number],
    [firstColumn, lastColumn]: [number, number],
  ): PatternFinding {
    const { rows, time } = this.matrix;
    const start = rows[firstRow]!.start;
    const end = rows[lastRow]!.end;
    const fromS = time.startS + firstColumn * time.columnS;
    const toS = time.startS + (lastColumn + 1) * time.columnS;
    const keys = firstRow === 0 && end === null ? "the whole key space" : `keys ${this.keyRange(start, end)}`;
    return {
      kind,
      summary: `${what}: ${keys}, ${this.timeText(fromS)} to ${this.timeText(toS)} (${METRIC_UNITS[this.metric]}).`,
      rule,
      firstRow,
      lastRow,
      start,
      end,
      firstColumn,
      lastColumn,
      fromS,
      toS,
    };
  }

  private keyRange(start: Buffer, end: Buffer | null): string {
    return `[${start.length ? displayKey(start) : "start of table"}, ${end ? displayKey(end) : "end of table"})`;
  }

  private timeText(s: number): string {
    return this.matrix.time.epoch
      ? new Date(s * 1000).toISOString().replace(".000Z", "Z")
      : `t=${+s.toFixed(3)} s`;
  }
}

function sustainedHotBands(grid: Grid, describe: Describer): PatternFinding[] {
  const rule = RULES.hotBand;
  const share = (row: number) =>
    sumOver(0, grid.columns - 1, (c) => grid.value[row * grid.columns + c]!) / grid.total;
  const active = runs(grid.columns, (c) => grid.columnTotal[c]! > 0);
  const activeColumns = active.reduce((sum, [first, last]) => sum + last - first + 1, 0);
  const findings: PatternFinding[] = [];
  for (const band of runs(
    grid.rows,
    (row) => share(row) >= rule.minLoadToKeyRatio * grid.keyFraction[row]!,
  )) {
    const bandShare = sumOver(band[0], band[1], share);
    const keyFraction = sumOver(band[0], band[1], (row) => grid.keyFraction[row]!);
    if (bandShare < rule.minShare || keyFraction > rule.maxKeyFraction) continue;
    let sustained = 0;
    for (let column = 0; column < grid.columns; column++) {
      if (grid.columnTotal[column]! === 0) continue;
      const columnShare =
        sumOver(band[0], band[1], (row) => grid.value[row * grid.columns + column]!) /
        grid.columnTotal[column]!;
      if (columnShare >= Math.max(rule.minColumnShare, 3 * keyFraction)) sustained++;
    }
    if (sustained < rule.minColumns * activeColumns) continue;
    findings.push(
      describe.finding(
        "hot-band",
        "Sustained hot band (one contiguous dark band: a hot key range)",
        `hot band: ${percent(keyFraction)} of the key space carries ${percent(bandShare)} of the load ` +
          `(≥ ${percent(rule.minShare)} on ≤ ${percent(rule.maxKeyFraction)}) and is hot in ` +
          `${percent(sustained / activeColumns)} of active columns (≥ ${percent(rule.minColumns)})`,
        band,
        [0, grid.columns - 1],
      ),
    );
  }
  return findings;
}

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

function sequentialDiagonal(grid: Grid, describe: Describer): PatternFinding[] {
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
    describe.finding(
      "diagonal",
      `Sequential diagonal (${correlation > 0 ? "ascending" : "descending"} keys: writes or reads walk the key space)`,
      `diagonal: the hottest key moves monotonically with time (rank correlation ${correlation.toFixed(2)}, ` +
        `|≥ ${rule.minCorrelation}|), across ${percent(travel)} of the key space (≥ ${percent(rule.minTravel)}), with a ` +
        `median ${percent(concentration)} of each column's load within ±${percent(rule.window)} of it (≥ ${percent(rule.minConcentration)})`,
      [Math.min(...peakRows), Math.max(...peakRows)],
      [columns[0]!, columns.at(-1)!],
    ),
  ];
}

/** Periodic bursts (≥ 3 evenly spaced) or single full-height vertical bands. */
function bursts(grid: Grid, describe: Describer): PatternFinding[] {
  const rule = RULES.bursts;
  const typical = median(grid.columnTotal);
  if (typical === 0) return [];
  const isBurst = (column: number) => grid.columnTotal[column]! >= rule.minColumnRatio * typical;
  const events = runs(grid.columns, isBurst);
  if (events.length === 0) return [];
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
    const periodS = meanSpacing * describe.columnS;
    return [
      describe.finding(
        "periodic",
        `Periodic bursts (a job every ~${+periodS.toFixed(1)} s)`,
        `periodic: ${events.length} bursts (≥ ${rule.minPeriodicEvents}) of columns ≥ ${rule.minColumnRatio}× the median ` +
          `column load, start spacing varies ${percent(variation)} (≤ ${percent(rule.maxSpacingVariation)}); ` +
          `bursts land on ${percent(fraction)} of the key space`,
        band,
        [events[0]![0], events.at(-1)![1]],
      ),
    ];
  }
  const findings: PatternFinding[] = [];
  for (const event of events) {
    const inEvent = (column: number) => column >= event[0] && column <= event[1];
    const { fraction } = extent(elevated(inEvent));
    if (fraction < rule.minFullHeight) continue;
    findings.push(
      describe.finding(
        "vertical-band",
        "Full-height vertical band (every key at once: a client, batch or network event)",
        `vertical band: column load ≥ ${rule.minColumnRatio}× the median column, raised on ${percent(fraction)} ` +
          `of the key space (≥ ${percent(rule.minFullHeight)})`,
        [0, grid.rows - 1],
        event,
      ),
    );
  }
  return findings;
}

/** Onset column of a row that turns hot and stays hot, or -1. */
function onsetOf(grid: Grid, row: number): number {
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

function suddenHotRanges(grid: Grid, describe: Describer): PatternFinding[] {
  const rule = RULES.sudden;
  const onsets = Array.from({ length: grid.rows }, (_, row) => onsetOf(grid, row));
  const findings: PatternFinding[] = [];
  for (const band of runs(grid.rows, (row) => onsets[row]! >= 0)) {
    const onset = median(onsets.slice(band[0], band[1] + 1));
    let bandLoad = 0;
    let allLoad = 0;
    for (let column = onset; column < grid.columns; column++) {
      allLoad += grid.columnTotal[column]!;
      bandLoad += sumOver(band[0], band[1], (row) => grid.value[row * grid.columns + column]!);
    }
    const share = bandLoad / Math.max(allLoad, 1e-12);
    if (share < rule.minShare) continue;
    findings.push(
      describe.finding(
        "sudden-hot-range",
        "Sudden hot range (a key range turned hot and stayed hot)",
        `sudden: after being quiet, the range's load rose ≥ ${rule.minRatio}× and stayed up in ≥ ` +
          `${percent(rule.minSustained)} of later columns, carrying ${percent(share)} of the load since (≥ ${percent(rule.minShare)})`,
        band,
        [onset, grid.columns - 1],
      ),
    );
  }
  return findings;
}

function healthySpread(grid: Grid, describe: Describer): PatternFinding[] {
  const rule = RULES.healthy;
  const rows = Array.from({ length: grid.rows }, (_, row) => {
    const share = sumOver(0, grid.columns - 1, (c) => grid.value[row * grid.columns + c]!) / grid.total;
    return { share, keyFraction: grid.keyFraction[row]!, density: share / grid.keyFraction[row]! };
  }).sort((a, b) => b.density - a.density);
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
    return rows.at(-1)!.density;
  };
  const ratio = densityAt(0.1) / Math.max(densityAt(0.9), 1e-12);
  if (share > rule.maxTopShare || ratio > rule.maxDensityRatio) return [];
  return [
    describe.finding(
      "healthy",
      "Healthy fine-grained spread (no hotspot)",
      `healthy: the hottest ${percent(keyFraction)} of the key space carries ${percent(share)} of the load ` +
        `(≤ ${percent(rule.maxTopShare)}), its load per key is ${ratio.toFixed(1)}× that of the coldest 10 % ` +
        `(≤ ${rule.maxDensityRatio}×), and no other pattern fired`,
      [0, grid.rows - 1],
      [0, grid.columns - 1],
    ),
  ];
}

/**
 * Simulations know each range's node CPU, so they can say what colour alone cannot: a band whose
 * nodes stay saturated while the rest idle is a hotspot (seed 003's dark band); saturated nodes
 * across nearly the whole key space are a cluster too small for the load, which no key fixes.
 */
function saturatedNodes(matrix: HeatMatrix, grid: Grid, describe: Describer): PatternFinding[] {
  if (!matrix.values.cpu) return [];
  const rule = RULES.hotNodes;
  const hot = hotCpuCells(matrix);
  const cpu = matrix.values.cpu;
  const active = runs(grid.columns, (c) => grid.columnTotal[c]! > 0);
  const activeColumns = active.reduce((sum, [first, last]) => sum + last - first + 1, 0);
  const hotRow = (row: number) =>
    sumOver(0, grid.columns - 1, (c) => hot[row * grid.columns + c]!) >= rule.minColumns * activeColumns;
  const bands = runs(grid.rows, hotRow);
  if (bands.length === 0 || activeColumns === 0) return [];
  const span: [number, number] = [active[0]![0], active.at(-1)![1]];
  const hotKeyFraction = bands.reduce(
    (sum, [first, last]) => sum + sumOver(first, last, (row) => grid.keyFraction[row]!),
    0,
  );
  if (hotKeyFraction >= rule.clusterKeyFraction) {
    return [
      describe.finding(
        "saturated-cluster",
        "Saturated cluster (the load is spread, but every part of the key space sits on a node at ≥ 90 % CPU: add nodes, or cut the work per request such as read fan-out)",
        `saturated-cluster: ranges covering ${percent(hotKeyFraction)} of the key space (≥ ${percent(rule.clusterKeyFraction)}) ` +
          `sat on nodes at ≥ ${percent(HOT_CPU)} CPU in ≥ ${percent(rule.minColumns)} of the active columns`,
        [0, grid.rows - 1],
        span,
      ),
    ];
  }
  const coldCpu = median(
    Array.from({ length: grid.rows }, (_, row) => row)
      .filter((row) => !hotRow(row))
      .map((row) => median(cpu.subarray(row * grid.columns, (row + 1) * grid.columns))),
  );
  // Tablets of one hot range land on several nodes, some saturated and some not: join runs
  // separated by small gaps so one band reads as one, and name the widest few.
  const maxGap = Math.max(2, Math.round(rule.maxGapRows * grid.rows));
  const joined: [number, number][] = [];
  for (const band of bands) {
    const last = joined.at(-1);
    if (last && band[0] - last[1] - 1 <= maxGap) last[1] = band[1];
    else joined.push([band[0], band[1]]);
  }
  const widest = joined
    .map((band) => ({
      band,
      keys: sumOver(band[0], band[1], (row) => (hotRow(row) ? grid.keyFraction[row]! : 0)),
    }))
    .sort((a, b) => b.keys - a.keys)
    .slice(0, rule.maxBands);
  return widest.map(({ band, keys }) =>
    describe.finding(
      "hot-band",
      `Sustained hot band on saturated nodes (ranges holding ${percent(keys)} of the data; the other ranges' nodes at a median ${percent(coldCpu)} CPU)`,
      `hot-band (node CPU): rows on nodes at ≥ ${percent(HOT_CPU)} CPU in ≥ ${percent(rule.minColumns)} of the ` +
        `active columns, gaps of ≤ ${maxGap} rows joined, while the other rows' nodes ran at a median ${percent(coldCpu)}`,
      band,
      span,
    ),
  );
}

/** Patterns found in `metric` (default ops), most specific first; empty when the load matches none. */
export function detectPatterns(matrix: HeatMatrix, metric: Metric = "ops"): PatternFinding[] {
  const grid = toGrid(matrix, metric);
  if (grid.total === 0 || grid.rows === 0) return [];
  const describe = new Describer(matrix, metric);
  const diagonal = sequentialDiagonal(grid, describe);
  const bands = diagonal.length ? [] : sustainedHotBands(grid, describe);
  // Node CPU adds what density misses; a band density already names is not named twice.
  const saturated = saturatedNodes(matrix, grid, describe).filter(
    (finding) => !bands.some((band) => band.firstRow <= finding.lastRow && finding.firstRow <= band.lastRow),
  );
  const found = [
    ...saturated,
    ...diagonal,
    ...bands,
    ...(diagonal.length ? [] : suddenHotRanges(grid, describe)),
    ...(diagonal.length ? [] : bursts(grid, describe)),
  ];
  return found.length ? found : healthySpread(grid, describe);
}

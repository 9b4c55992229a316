/**
 * A pattern finding as data: what the heatmap shows (its kind), where and when, and the measured
 * numbers with the thresholds of the rule that fired. Sentences are rendered from it
 * (finding-text.ts).
 */
import type { HeatMatrix, HeatMetric } from "../matrix/heat-matrix.js";
import type { TimeAxis } from "../matrix/time-axis.js";
import { keyRangeName } from "./key-range-name.js";

/** Where and when a finding lies on the matrix it was found in. */
export interface FindingPlace {
  /** The keys as the summary names them: `acme-*` (a prefix), `[a, b)` or `the whole key space`. */
  keys: string;
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
  /** What the matrix's load counts, and its time axis (wall clock for logs, run time for simulations). */
  metric: HeatMetric;
  axis: TimeAxis;
  /** The one key carrying most of the finding's load, decoded, and its share of all the load in the span (from the log). */
  hotKey?: { key: string; share: number };
}

/** The measured numbers of each kind of finding, each beside the thresholds its rule held them to. Shares are 0..1. */
export type PatternMeasures =
  | {
      kind: "hot-band";
      /** Share of the key space the band holds, and of the load it carries. */
      keyShare: number;
      loadShare: number;
      /** The band's load per key over the rest's (Infinity when the rest is idle). */
      contrast: number;
      /** Share of the active columns in which the band is ≥ minColumnContrast× the rest per key. */
      sustainedShare: number;
      /** With saturated nodes (simulations): share of the run some node sat at ≥ hotCpu. */
      saturatedNodes?: { timeShare: number; hotCpu: number };
      thresholds: {
        minShare: number;
        maxKeyFraction: number;
        minContrast: number;
        minColumnContrast: number;
        minColumns: number;
      };
    }
  | {
      kind: "hot-row";
      keyShare: number;
      /** Share of the load the rows carry over the finding's time span. */
      share: number;
      durationS: number;
      thresholds: { minShare: number; minContrast: number; minDurationS: number };
    }
  | {
      kind: "diagonal";
      /** Rank correlation of the hottest key's position with time (sign: ascending or descending). */
      correlation: number;
      /** Share of the key space the hottest key travels. */
      travel: number;
      /** Median share of each column's load within ±window of the hottest key. */
      concentration: number;
      thresholds: { minCorrelation: number; minTravel: number; window: number; minConcentration: number };
    }
  | {
      kind: "periodic";
      bursts: number;
      periodS: number;
      /** Variation of the bursts' start spacing (standard deviation over mean). */
      spacingVariation: number;
      /** Share of the key space raised during the bursts. */
      keyShare: number;
      thresholds: { minPeriodicEvents: number; minColumnRatio: number; maxSpacingVariation: number };
    }
  | {
      kind: "vertical-band";
      /** Share of the key space raised during the band. */
      keyShare: number;
      thresholds: { minColumnRatio: number; minFullHeight: number };
    }
  | {
      kind: "sudden-hot-range";
      /** Share of the load the range carries from its onset on. */
      share: number;
      thresholds: { minRatio: number; minSustained: number; minShare: number };
    }
  | {
      kind: "saturated-range";
      /** Share of the key space on saturated nodes, and the median CPU of the other ranges' nodes. */
      keyShare: number;
      otherCpu: number;
      maxGapRows: number;
      thresholds: { hotCpu: number; minColumns: number; bandMinContrast: number };
    }
  | {
      kind: "saturated-cluster";
      keyShare: number;
      /** Median CPU of the other ranges' nodes; undefined when every range sits on a saturated node. */
      otherCpu?: number;
      thresholds: { minKeyShare: number; hotCpu: number; minColumns: number; minOtherCpu: number };
    }
  | {
      kind: "healthy";
      /** The hottest `keyShare` of the key space carries `share` of the load. */
      keyShare: number;
      share: number;
      /** Load per key of the hottest 10 % over the coldest 10 %. */
      densityRatio: number;
      thresholds: { maxTopShare: number; maxDensityRatio: number };
    };

export type PatternKind = PatternMeasures["kind"];

export type PatternFinding = FindingPlace & PatternMeasures;

/** Places findings on one matrix and metric, naming keys as the pictures do. */
export class FindingWriter {
  constructor(
    readonly matrix: HeatMatrix,
    private readonly metric: HeatMetric,
  ) {}

  get columnS(): number {
    return this.matrix.time.columnS;
  }

  finding(
    measures: PatternMeasures,
    [firstRow, lastRow]: [number, number],
    [firstColumn, lastColumn]: [number, number],
  ): PatternFinding {
    const { rows, time } = this.matrix;
    const first = rows[firstRow];
    const last = rows[lastRow];
    if (first === undefined || last === undefined)
      throw new RangeError(
        `finding rows ${firstRow}..${lastRow}: expected rows of the matrix's ${rows.length}`,
      );
    return {
      ...measures,
      keys: keyRangeName(rows, firstRow, lastRow),
      firstRow,
      lastRow,
      start: first.start,
      end: last.end,
      firstColumn,
      lastColumn,
      fromS: time.startS + firstColumn * time.columnS,
      toS: time.startS + (lastColumn + 1) * time.columnS,
      metric: this.metric,
      axis: time,
    };
  }
}

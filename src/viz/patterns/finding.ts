/** A pattern finding: what the heatmap shows, where and when, in words, with the rule that fired. */
import { HEAT_METRIC_UNITS, type HeatMatrix, type HeatMetric } from "../matrix/heat-matrix.js";
import { timeLabel } from "../matrix/time-axis.js";
import { exactRange, keyRangeName } from "./key-range-name.js";

export type PatternKind =
  | "hot-band"
  | "hot-row"
  | "diagonal"
  | "periodic"
  | "sudden-hot-range"
  | "vertical-band"
  | "saturated-range"
  | "saturated-cluster"
  | "healthy";

export interface PatternFinding {
  kind: PatternKind;
  /** One sentence for people, naming the key range and the time span. */
  summary: string;
  /** The rule that fired, with the measured numbers. */
  rule: string;
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
  /** The share of the load the keys carry over the finding's time span (hot rows). */
  share?: number;
  /** The one key carrying most of a hot row's load, decoded, and its share of all the load in the span (from the log). */
  hotKey?: { key: string; share: number };
}

/** Writes findings about one matrix and metric, naming keys and times as the pictures do. */
export class FindingWriter {
  constructor(
    readonly matrix: HeatMatrix,
    private readonly metric: HeatMetric,
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
    const fromS = time.startS + firstColumn * time.columnS;
    const toS = time.startS + (lastColumn + 1) * time.columnS;
    const keys = keyRangeName(rows, firstRow, lastRow);
    const start = rows[firstRow]!.start;
    const end = rows[lastRow]!.end;
    // A prefix names the band for people; the rule keeps the exact range.
    const exact = keys.endsWith("*") ? `; keys ${exactRange(start, end)}` : "";
    const named = keys.startsWith("the ") ? keys : `keys ${keys}`;
    return {
      kind,
      summary: `${what}: ${named}, ${this.timeText(fromS)} to ${this.timeText(toS)} (${HEAT_METRIC_UNITS[this.metric]}).`,
      rule: `${rule}${exact}`,
      keys,
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

  /** Logs: the full UTC time (a sentence may be read days later); simulations: as the axis reads. */
  private timeText(s: number): string {
    const { time } = this.matrix;
    return time.epoch
      ? new Date(s * 1000).toISOString().replace(".000Z", "Z")
      : `t=${timeLabel(s - time.startS, false, time.columns * time.columnS)}`;
  }
}

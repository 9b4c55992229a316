/**
 * Loads accumulated on a grid of fine key bins × time columns, then merged into the heatmap's rows:
 * cold neighbouring bins share a row, hot bins keep their own (see key-axis.ts). Pure.
 */
import type { AccessOp } from "../../access-log/access-record.js";
import type { HeatMatrix, HeatRow } from "./heat-matrix.js";
import { type KeyAxisPlan, mergeColdBins } from "./key-axis.js";
import { fieldLabels, rowName, rowNameText } from "./key-fields.js";
import { prefixLabels } from "./key-prefix.js";
import type { TimeAxis } from "./time-axis.js";

/** Latency histogram buckets: bucket b holds [0.01 ms·1.6^b, 0.01 ms·1.6^(b+1)), up to ~34 s. */
const LATENCY_BUCKETS = 32;
const LATENCY_MIN_MS = 0.01;
const LATENCY_LOG_FACTOR = Math.log(1.6);
const UINT16_MAX = 0xffff;

function latencyBucket(ms: number): number {
  if (ms <= LATENCY_MIN_MS) return 0;
  return Math.min(LATENCY_BUCKETS - 1, Math.floor(Math.log(ms / LATENCY_MIN_MS) / LATENCY_LOG_FACTOR));
}

function latencyBucketMs(bucket: number): number {
  return LATENCY_MIN_MS * Math.exp((bucket + 0.5) * LATENCY_LOG_FACTOR);
}

/**
 * Index of the first of `sorted` greater than `key`. Keys are compared as latin1 strings: one char
 * per byte, so string order is unsigned byte order, and V8 compares strings far faster than Buffers.
 */
function upperBound(sorted: readonly string[], key: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle]! <= key) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Amounts (events, rows, bytes) per fine key bin × time column; divided by the column width at the end. */
export class LoadGrid {
  private readonly reads: Float64Array;
  private readonly writes: Float64Array;
  private readonly bytes: Float64Array;
  private cpu: Float32Array | undefined;
  private latency: Uint16Array | undefined;
  /** Bytes stored per fine bin (the largest any step reported), when the simulator reports them. */
  private storedData: Float64Array | undefined;
  private readonly boundaryText: string[];

  /**
   * @param boundaries sorted, distinct start keys of the fine bins; the first must be empty (the
   *   table's start) so every key falls in a bin
   */
  constructor(
    readonly boundaries: readonly Buffer[],
    readonly time: TimeAxis,
  ) {
    if (boundaries.length === 0 || boundaries[0]!.length !== 0) {
      throw new Error("fine key bins: the first boundary must be the empty key (start of the table)");
    }
    this.boundaryText = boundaries.map((key) => key.toString("latin1"));
    const cells = boundaries.length * time.columns;
    this.reads = new Float64Array(cells);
    this.writes = new Float64Array(cells);
    this.bytes = new Float64Array(cells);
  }

  /**
   * Cells are column-major: logs come roughly in time order, so the cells their records land in
   * stay within one column (a few hundred kilobytes with the latency histograms) instead of being
   * strided over the whole grid, which bins a time-ordered log about twice as fast.
   */
  private cellOf(bin: number, column: number): number {
    return column * this.boundaries.length + bin;
  }

  binOf(key: Buffer): number {
    return upperBound(this.boundaryText, key.toString("latin1")) - 1;
  }

  /** Last bin holding keys below the exclusive `end` (null: the last bin), never before `first`. */
  lastBinBefore(end: Buffer | null, first: number): number {
    if (end === null) return this.boundaries.length - 1;
    const bin = this.binOf(end);
    return Math.max(first, this.boundaries[bin]!.equals(end) ? bin - 1 : bin);
  }

  addAccess(bin: number, column: number, op: AccessOp, bytes: number, latencyMs: number | undefined): void {
    const cell = this.cellOf(bin, column);
    if (op === "write") this.writes[cell]! += 1;
    else this.reads[cell]! += 1;
    this.bytes[cell]! += bytes;
    if (latencyMs !== undefined) {
      this.latency ??= new Uint16Array(this.reads.length * LATENCY_BUCKETS);
      const slot = cell * LATENCY_BUCKETS + latencyBucket(latencyMs);
      // Saturates rather than wraps: p99 stays near right even for a cell with > 65k hits in one bucket.
      if (this.latency[slot]! < UINT16_MAX) this.latency[slot]! += 1;
    }
  }

  /** Spreads rates over bins `first..last` (evenly: a range's keys are not known in finer detail). */
  addRates(
    first: number,
    last: number,
    column: number,
    seconds: number,
    load: {
      readsPerS: number;
      writesPerS: number;
      bytesPerS: number;
      nodeCpu?: number;
      storedBytes?: number;
    },
  ): void {
    const share = seconds / (last - first + 1);
    for (let bin = first; bin <= last; bin++) {
      if (load.storedBytes !== undefined) {
        this.storedData ??= new Float64Array(this.boundaries.length);
        this.storedData[bin] = Math.max(this.storedData[bin]!, load.storedBytes / (last - first + 1));
      }
      const cell = this.cellOf(bin, column);
      this.reads[cell]! += load.readsPerS * share;
      this.writes[cell]! += load.writesPerS * share;
      this.bytes[cell]! += load.bytesPerS * share;
      if (load.nodeCpu !== undefined) {
        this.cpu ??= new Float32Array(this.reads.length);
        this.cpu[cell] = Math.max(this.cpu[cell]!, load.nodeCpu);
      }
    }
  }

  /**
   * Merges cold neighbouring bins (never across `barrierLevel` prefixes) into at most `maxRows` rows,
   * labelled and named through the plan's schema when it has one.
   */
  toMatrix(plan: Pick<KeyAxisPlan, "maxRows" | "prefixer" | "barrierLevel" | "naming">): HeatMatrix {
    const { maxRows, prefixer, barrierLevel, naming } = plan;
    const { columns } = this.time;
    const bins = this.boundaries.length;
    const peak = new Float64Array(bins);
    for (let column = 0; column < columns; column++) {
      for (let bin = 0; bin < bins; bin++) {
        const cell = this.cellOf(bin, column);
        peak[bin] = Math.max(peak[bin]!, this.reads[cell]! + this.writes[cell]!);
      }
    }
    const barriers = this.boundaries.map(
      (start, bin) =>
        bin > 0 &&
        barrierLevel >= 0 &&
        !prefixer
          .prefix(start, barrierLevel)
          .equals(prefixer.prefix(this.boundaries[bin - 1]!, barrierLevel)),
    );
    const starts = mergeColdBins(peak, barriers, maxRows);
    const { storedData } = this;
    const storedIn = (first: number, end: number) =>
      storedData ? storedData.subarray(first, end).reduce((sum, count) => sum + count, 0) : 0;
    const byStoredData = storedIn(0, bins) > 0;
    const measure = (first: number, end: number) => (byStoredData ? storedIn(first, end) : end - first);
    const total = measure(0, bins);
    const rows: HeatRow[] = starts.map((first, row) => {
      const next = starts[row + 1];
      const start = this.boundaries[first]!;
      const end = next === undefined ? null : this.boundaries[next]!;
      return {
        start,
        end,
        ...(naming
          ? {
              labels: fieldLabels(naming, start, prefixer.levels),
              name: rowNameText(rowName(naming, start, end)),
            }
          : { labels: prefixLabels(prefixer, start) }),
        // A row storing nothing still gets a sliver, so its density stays finite.
        keyShare: Math.max(measure(first, next ?? bins), 1e-9 * total) / total,
      };
    });
    const perSecond = 1 / this.time.columnS;
    const sum = (source: Float64Array) =>
      this.mergeRows(starts, (out, cell) => out + source[cell]!, perSecond);
    const reads = sum(this.reads);
    const writes = sum(this.writes);
    const values: HeatMatrix["values"] = {
      ops: reads.map((value, cell) => value + writes[cell]!),
      reads,
      writes,
      bytes: sum(this.bytes),
    };
    const cpu = this.cpu;
    if (cpu) values.cpu = this.mergeRows(starts, (out, cell) => Math.max(out, cpu[cell]!), 1);
    if (this.latency) values.latency = this.latencyP99(starts, this.latency);
    const labelSeparator = naming
      ? naming.spec.layout === "text"
        ? (naming.spec.separator ?? "#")
        : "|"
      : prefixer.separator;
    return { time: this.time, rows, values, barrierLevel, labelSeparator };
  }

  private mergeRows(
    starts: readonly number[],
    combine: (merged: number, fineCell: number) => number,
    scale: number,
  ): Float64Array {
    const { columns } = this.time;
    const out = new Float64Array(starts.length * columns);
    starts.forEach((first, row) => {
      const end = starts[row + 1] ?? this.boundaries.length;
      for (let column = 0; column < columns; column++) {
        let merged = 0;
        for (let bin = first; bin < end; bin++) merged = combine(merged, this.cellOf(bin, column));
        out[row * columns + column] = merged * scale;
      }
    });
    return out;
  }

  private latencyP99(starts: readonly number[], histograms: Uint16Array): Float64Array {
    const { columns } = this.time;
    const out = new Float64Array(starts.length * columns);
    const merged = new Float64Array(LATENCY_BUCKETS);
    starts.forEach((first, row) => {
      const end = starts[row + 1] ?? this.boundaries.length;
      for (let column = 0; column < columns; column++) {
        merged.fill(0);
        let total = 0;
        for (let bin = first; bin < end; bin++) {
          const offset = this.cellOf(bin, column) * LATENCY_BUCKETS;
          for (let bucket = 0; bucket < LATENCY_BUCKETS; bucket++) {
            merged[bucket]! += histograms[offset + bucket]!;
            total += histograms[offset + bucket]!;
          }
        }
        if (total === 0) continue;
        let seen = 0;
        let bucket = 0;
        for (; bucket < LATENCY_BUCKETS - 1; bucket++) {
          seen += merged[bucket]!;
          if (seen >= total * 0.99) break;
        }
        out[row * columns + column] = latencyBucketMs(bucket);
      }
    });
    return out;
  }
}

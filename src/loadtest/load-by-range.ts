/**
 * Where the run's writes landed beside where the lab put them, in the rows the lab's heatmap draws:
 * its key ranges (its tablets) at the end of its steady state. Each side's writes become shares of
 * those rows; they agree when the total variation distance between the two (half the summed
 * absolute differences: the share of writes that would have to move) is at most `TOLERANCE` plus
 * twice the distance a sample of this many writes shows by chance (a short run's few writes
 * scatter). This works the same for any key: an as-is key's hot band is the rows its big customer's
 * keys fall in; a salted key spreads every row alike. For a salted key the run's share per salt
 * bucket is reported too, with how far the busiest bucket is from an even share (what the salt
 * promises and the lab assumes: its tablets carry whole buckets evenly). Pure, but for reading the log.
 */
import { readFile } from "node:fs/promises";
import { parseAccessJsonRecord } from "../access-log/access-record.js";
import type { KeySchema } from "../keys/types.js";
import type { DesignResult } from "../sim/results/results.js";

/** Shares of writes that may move between rows beyond sampling noise and still agree. */
export const TOLERANCE = 0.1;

export interface RangeShare {
  start: Buffer;
  /** Exclusive; null: the end of the table. */
  end: Buffer | null;
  lab: number;
  run: number;
}

export interface BucketShares {
  /** The run's share of writes per salt bucket. */
  shares: number[];
  /** The busiest bucket's share over an even one (1 = perfectly even). */
  busiestOverEven: number;
}

export interface LoadComparison {
  rows: RangeShare[];
  /** The run's written keys compared. */
  writes: number;
  /** Total variation distance between the lab's and the run's shares over the rows, 0–1. */
  distance: number;
  /** The distance allowed: TOLERANCE plus twice the expected distance of a sample of `writes`. */
  allowed: number;
  agree: boolean;
  /** A salted key's buckets (absent for an unsalted one). */
  buckets?: BucketShares;
}

/** The access logs' written keys (JSONL). */
export async function loggedWrites(paths: readonly string[]): Promise<Buffer[]> {
  const keys: Buffer[] = [];
  for (const path of paths) {
    for (const line of (await readFile(path, "utf8")).split("\n")) {
      if (line.trim() === "") continue;
      const record = parseAccessJsonRecord(line);
      if (record.op === "write") keys.push(record.key);
    }
  }
  return keys;
}

/** The lab's rows (its last steady step's key ranges) with their shares of its writes. */
export function labRows(result: DesignResult): { start: Buffer; end: Buffer | null; share: number }[] {
  const steadyFrom = result.summary.steadyState.fromS;
  const step =
    result.loadSteps.filter((candidate) => candidate.t >= steadyFrom).at(-1) ?? result.loadSteps.at(-1);
  if (step === undefined) throw new Error(`the lab's run of ${result.design} drew no heatmap steps`);
  const total = step.ranges.reduce((sum, range) => sum + range.writesPerS, 0);
  if (total === 0) throw new Error(`the lab's run of ${result.design} wrote nothing in its last step`);
  return step.ranges.map((range) => ({
    start: range.start,
    end: range.end,
    share: range.writesPerS / total,
  }));
}

/** The row holding `key`: the last whose start is at or before it (keys before the first row count in it). */
function rowOf(starts: readonly Buffer[], key: Buffer): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (Buffer.compare(starts[middle] ?? key, key) <= 0) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** Expected total variation distance of `writes` draws from `shares` (a multinomial sample) from `shares`. */
export function samplingDistance(shares: readonly number[], writes: number): number {
  if (writes === 0) return 1;
  const spread = shares.reduce((sum, p) => sum + Math.sqrt((p * (1 - p)) / writes), 0);
  // E|X − p| of a share's sample is √(2/π)·σ for a normal sample; the distance is half the sum.
  return (Math.sqrt(2 / Math.PI) * spread) / 2;
}

export function compareLoad(lab: DesignResult, keys: readonly Buffer[], schema: KeySchema): LoadComparison {
  const rows = labRows(lab);
  const starts = rows.map((row) => row.start);
  const counts = new Float64Array(rows.length);
  for (const key of keys) {
    const row = rowOf(starts, key);
    counts[row] = (counts[row] ?? 0) + 1;
  }
  const writes = keys.length;
  const shares = rows.map((row, index) => ({
    start: row.start,
    end: row.end,
    lab: row.share,
    run: writes === 0 ? 0 : (counts[index] ?? 0) / writes,
  }));
  const distance = shares.reduce((sum, row) => sum + Math.abs(row.lab - row.run), 0) / 2;
  const allowed =
    TOLERANCE +
    2 *
      samplingDistance(
        rows.map((row) => row.share),
        writes,
      );
  return {
    rows: shares,
    writes,
    distance,
    allowed,
    agree: distance <= allowed,
    ...(schema.bucketCount > 1 ? { buckets: bucketShares(schema, keys) } : {}),
  };
}

function bucketShares(schema: KeySchema, keys: readonly Buffer[]): BucketShares {
  const counts = new Array<number>(schema.bucketCount).fill(0);
  for (const key of keys) {
    const bucket = schema.bucketOfKey(key);
    counts[bucket] = (counts[bucket] ?? 0) + 1;
  }
  const shares = counts.map((count) => (keys.length === 0 ? 0 : count / keys.length));
  return { shares, busiestOverEven: Math.max(...shares) * schema.bucketCount };
}

/**
 * Client-side latencies as a log-bucketed histogram: 5 % wide buckets from 10 µs, so a percentile
 * is within 5 % of the exact one, memory stays fixed over hours, and the tasks' histograms merge
 * by adding counts (the run's p99 over every task, read back from the table). Pure.
 */

/** Bucket → operations, sparse (JSON in a task's progress record). */
export type Histogram = Record<string, number>;

const GROWTH = 1.05;
const FLOOR_MS = 0.01;

function bucketOf(ms: number): number {
  return Math.max(0, Math.floor(Math.log(Math.max(ms, FLOOR_MS) / FLOOR_MS) / Math.log(GROWTH)));
}

/** The bucket's upper edge, ms: a percentile reads high rather than low. */
function upperEdge(bucket: number): number {
  return FLOOR_MS * GROWTH ** (bucket + 1);
}

export function record(histogram: Histogram, ms: number, count = 1): void {
  const bucket = String(bucketOf(ms));
  histogram[bucket] = (histogram[bucket] ?? 0) + count;
}

export function merge(into: Histogram, from: Histogram): Histogram {
  for (const [bucket, count] of Object.entries(from)) into[bucket] = (into[bucket] ?? 0) + count;
  return into;
}

export function total(histogram: Histogram): number {
  return Object.values(histogram).reduce((sum, count) => sum + count, 0);
}

/** The `p`-th percentile (0 < p ≤ 100) in ms; null with no operations. */
export function percentile(histogram: Histogram, p: number): number | null {
  const buckets = Object.entries(histogram)
    .map(([bucket, count]) => [Number(bucket), count] as const)
    .sort((a, b) => a[0] - b[0]);
  const n = buckets.reduce((sum, [, count]) => sum + count, 0);
  if (n === 0) return null;
  const rank = Math.ceil((p / 100) * n);
  let seen = 0;
  for (const [bucket, count] of buckets) {
    seen += count;
    if (seen >= rank) return upperEdge(bucket);
  }
  return upperEdge(buckets.at(-1)![0]);
}

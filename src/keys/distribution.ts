/**
 * Checks how evenly a schema's salt spreads sample values over its buckets — for users' own unit
 * tests (e.g. a synthetic device population) and `keyspread keys inspect`.
 */
import type { FieldValues, KeySchema } from "./types.js";

export interface DistributionReport {
  samples: number;
  /** Rows per bucket, index = bucket. */
  counts: number[];
  mean: number;
  max: number;
  min: number;
  /** The hottest bucket's load relative to an even spread: max / mean (1 = perfectly even). */
  skew: number;
  /** Pearson's chi-square statistic against the uniform distribution. */
  chiSquare: number;
  degreesOfFreedom: number;
  /** Probability of a chi-square at least this large if the buckets were truly uniform. */
  pValue: number;
}

/**
 * A sample whose buckets are not even enough: `problem` says which check failed and `limit` is that
 * check's bound (`maxSkew` or `minPValue`); `report` holds the figures.
 */
export class DistributionError extends Error {
  override readonly name = "DistributionError";
  constructor(
    message: string,
    readonly report: DistributionReport,
    readonly problem: "no-samples" | "skew" | "p-value",
    readonly limit?: number,
  ) {
    super(message);
  }
}

/** Counts the bucket of every sample (only the salt fields need to be present). */
export function bucketCounts(schema: KeySchema, sampleValues: Iterable<FieldValues>): number[] {
  const counts = new Array<number>(schema.bucketCount).fill(0);
  for (const values of sampleValues) {
    const bucket = schema.bucketOf(values);
    counts[bucket] = (counts[bucket] ?? 0) + 1;
  }
  return counts;
}

export function distributionReport(
  schema: KeySchema,
  sampleValues: Iterable<FieldValues>,
): DistributionReport {
  return summarizeBucketCounts(bucketCounts(schema, sampleValues));
}

export function summarizeBucketCounts(counts: number[]): DistributionReport {
  const samples = counts.reduce((sum, c) => sum + c, 0);
  const mean = counts.length > 0 ? samples / counts.length : 0;
  const max = Math.max(0, ...counts);
  const min = counts.length > 0 ? Math.min(...counts) : 0;
  const chiSquare = mean > 0 ? counts.reduce((sum, c) => sum + (c - mean) ** 2 / mean, 0) : 0;
  const degreesOfFreedom = Math.max(counts.length - 1, 0);
  const pValue = degreesOfFreedom > 0 ? regularizedGammaQ(degreesOfFreedom / 2, chiSquare / 2) : 1;
  return {
    samples,
    counts,
    mean,
    max,
    min,
    skew: mean > 0 ? max / mean : 0,
    chiSquare,
    degreesOfFreedom,
    pValue,
  };
}

/**
 * Throws DistributionError when the hottest bucket exceeds `maxSkew` × the mean, or (if given)
 * when the chi-square p-value falls below `minPValue`. Returns the report otherwise.
 */
export function assertEvenDistribution(
  schema: KeySchema,
  sampleValues: Iterable<FieldValues>,
  options: { maxSkew: number; minPValue?: number },
): DistributionReport {
  const report = distributionReport(schema, sampleValues);
  const hottest = report.counts.indexOf(report.max);
  const summary = `${report.samples} samples over ${report.counts.length} buckets of schema "${schema.spec.name}": max/mean ${report.skew.toFixed(3)} (bucket ${hottest} has ${report.max}, mean ${report.mean.toFixed(1)}), chi-square ${report.chiSquare.toFixed(1)}, p = ${report.pValue.toPrecision(3)}`;
  if (report.samples === 0) throw new DistributionError("no samples to check", report, "no-samples");
  if (report.skew > options.maxSkew) {
    throw new DistributionError(
      `uneven salt: max/mean ${report.skew.toFixed(3)} > maxSkew ${options.maxSkew}; ${summary}`,
      report,
      "skew",
      options.maxSkew,
    );
  }
  if (options.minPValue !== undefined && report.pValue < options.minPValue) {
    throw new DistributionError(
      `uneven salt: p = ${report.pValue.toPrecision(3)} < minPValue ${options.minPValue}; ${summary}`,
      report,
      "p-value",
      options.minPValue,
    );
  }
  return report;
}

/** Q(a, x) = Γ(a, x) / Γ(a): the chi-square survival function is Q(df / 2, χ² / 2). */
export function regularizedGammaQ(a: number, x: number): number {
  if (x <= 0) return 1;
  if (x < a + 1) return 1 - gammaPSeries(a, x);
  return gammaQContinuedFraction(a, x);
}

const EPSILON = 1e-15;
const TINY = 1e-300;

function gammaPSeries(a: number, x: number): number {
  let term = 1 / a;
  let sum = term;
  for (let n = 1; n < 10_000 && Math.abs(term) > Math.abs(sum) * EPSILON; n++) {
    term *= x / (a + n);
    sum += term;
  }
  return sum * Math.exp(-x + a * Math.log(x) - logGamma(a));
}

/** Lentz's method for the continued fraction of Γ(a, x). */
function gammaQContinuedFraction(a: number, x: number): number {
  let b = x + 1 - a;
  let c = 1 / TINY;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 10_000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPSILON) break;
  }
  return Math.exp(-x + a * Math.log(x) - logGamma(a)) * h;
}

const LANCZOS = [
  676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
  -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(z) for z > 0 (Lanczos, g = 7). */
function logGamma(z: number): number {
  if (z < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * z)) - logGamma(1 - z);
  const zm = z - 1;
  let series = 0.99999999999980993;
  LANCZOS.forEach((coefficient, i) => {
    series += coefficient / (zm + i + 1);
  });
  const t = zm + LANCZOS.length - 0.5;
  return 0.5 * Math.log(2 * Math.PI) + (zm + 0.5) * Math.log(t) - t + Math.log(series);
}

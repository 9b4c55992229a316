/**
 * What one task measured, as its progress record holds it (JSON): operations done and aimed for,
 * client-side latency per operation (histograms), errors by status code, and a timeline of
 * intervals. A restarted task starts from its share's record; `loadtest status` merges the tasks'. Pure.
 */
import { type Histogram, merge, record } from "./latency-histogram.js";

export interface Interval {
  /** Seconds since the run started, at the interval's end. */
  atS: number;
  writes: number;
  targetWrites: number;
  reads: number;
  targetReads: number;
  writeP99Ms: number | null;
  readP99Ms: number | null;
  errors: number;
}

export interface Measurement {
  /** Seconds of the run this share has driven (a resumed task goes on from here). */
  drivenS: number;
  /** Rows written and aimed for; reads (one per read operation, whatever its ranges) done and aimed for. */
  writes: number;
  targetWrites: number;
  reads: number;
  targetReads: number;
  /** Operations due that were not sent: the task already had its most requests in flight (the machine could not keep up). */
  behind: number;
  /** By status code name (RESOURCE_EXHAUSTED: throttled; UNAVAILABLE, DEADLINE_EXCEEDED: shed or unreachable). */
  errors: Record<string, number>;
  /** By operation: `write`, and each read pattern by name. */
  latency: Record<string, Histogram>;
  timeline: Interval[];
}

export function emptyMeasurement(): Measurement {
  return {
    drivenS: 0,
    writes: 0,
    targetWrites: 0,
    reads: 0,
    targetReads: 0,
    behind: 0,
    errors: {},
    latency: {},
    timeline: [],
  };
}

export function recordLatency(measurement: Measurement, operation: string, ms: number, count = 1): void {
  measurement.latency[operation] ??= {};
  record(measurement.latency[operation], ms, count);
}

export function recordError(measurement: Measurement, code: string, count = 1): void {
  measurement.errors[code] = (measurement.errors[code] ?? 0) + count;
}

export function errorCount(measurement: Measurement): number {
  return Object.values(measurement.errors).reduce((sum, n) => sum + n, 0);
}

/** The status code name of a failed operation: from a gRPC error's numeric code or a reason like `UNAVAILABLE: …`. */
export function errorCode(error: unknown, codeName: (code: number) => string): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "number") return codeName(code);
  const text = error instanceof Error ? error.message : String(error);
  return /^([A-Z][A-Z_]+|code \d+):/.exec(text)?.[1] ?? (error instanceof Error ? error.name : "ERROR");
}

/** The run's measurement: every task's, added (timelines joined by interval end). */
export function mergeMeasurements(measurements: readonly Measurement[]): Measurement {
  const run = emptyMeasurement();
  for (const m of measurements) {
    run.drivenS = Math.max(run.drivenS, m.drivenS);
    run.writes += m.writes;
    run.targetWrites += m.targetWrites;
    run.reads += m.reads;
    run.targetReads += m.targetReads;
    run.behind += m.behind;
    for (const [code, n] of Object.entries(m.errors)) recordError(run, code, n);
    for (const [operation, histogram] of Object.entries(m.latency)) {
      run.latency[operation] = merge(run.latency[operation] ?? {}, histogram);
    }
  }
  run.timeline = mergeTimelines(measurements.map((m) => m.timeline));
  return run;
}

/** Intervals of every task that end in the same whole second, added; p99s the worst task's. */
function mergeTimelines(timelines: readonly Interval[][]): Interval[] {
  const byEnd = new Map<number, Interval>();
  for (const interval of timelines.flat()) {
    const at = Math.round(interval.atS);
    const seen = byEnd.get(at);
    if (seen === undefined) {
      byEnd.set(at, { ...interval, atS: at });
      continue;
    }
    for (const field of ["writes", "targetWrites", "reads", "targetReads", "errors"] as const) {
      seen[field] += interval[field];
    }
    seen.writeP99Ms = worst(seen.writeP99Ms, interval.writeP99Ms);
    seen.readP99Ms = worst(seen.readP99Ms, interval.readP99Ms);
  }
  return [...byEnd.values()].sort((a, b) => a.atS - b.atS);
}

function worst(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.max(a, b);
}

/**
 * Where in a workload's cycle a run is placed and which of its time is judged. A steady load is
 * judged after the model's warm-up, as before. A load that changes over its cycle (bursts, a
 * diurnal curve) is judged at its peaks: the run ends at the end of a peak, starts early enough for
 * the warm-up the balancer needs before it, and the verdict is taken over the peak spans after the
 * warm-up — wherever the scenario's `start` falls in the cycle, the same wall-clock window is run.
 */
import { arrivalMultiplier } from "./arrival.js";
import type { Arrival } from "./scenario.js";

/** `[fromS, toS)` seconds, run-relative unless said otherwise. */
export interface Span {
  fromS: number;
  toS: number;
}

/** A workload's cycle: its period and the write rate (rows/s, all groups) at its peak and trough. */
export interface Cycle {
  periodS: number;
  peakRowsPerS: number;
  troughRowsPerS: number;
  /** How long the load stays near its peak each time: a burst's window; an hour or more of a diurnal curve. */
  peakLastsS: number;
  /**
   * The most rows/s in each wall-clock hour of the period (Bigtable bills each hour at its most
   * nodes); one hour at the peak when the period is an hour or less, since every hour holds a peak.
   */
  hourlyPeakRowsPerS: number[];
}

export interface RunPlan {
  /** The run's t = 0 is this long after the scenario's `start`. */
  offsetS: number;
  durationS: number;
  /** The run's time the verdict is taken over: after the warm-up; for a cycle, its peak spans. */
  judged: Span[];
  cycle: Cycle | null;
}

/** A write group as the cycle sees it: rows/s at multiplier 1 and its arrival pattern. */
export interface CycleGroup {
  rowsPerS: number;
  arrival: Arrival;
}

const DAY_S = 86400;
/**
 * Seconds whose load is within this share of the cycle's peak belong to the peak (assumption: a
 * diurnal curve spends about an hour and a half within 1 % of its peak at amplitude 0.8; a burst's
 * window is exactly at its peak).
 */
const PEAK_BAND = 0.01;
/** A peak span judged is at most this long, centred on the peak (assumption: the busiest hour). */
const MAX_JUDGED_SPAN_S = 3600;
/** Periods beyond this (bursts whose periods share no small multiple) use the longest one (an approximation). */
const MAX_PERIOD_S = 7 * DAY_S;

/**
 * The run for a workload starting at `startMs` (epoch ms), asked to last `durationS`, whose model
 * needs `warmUpS` before the load is judged.
 */
export function planRun(
  groups: readonly CycleGroup[],
  startMs: number,
  durationS: number,
  warmUpS: number,
): RunPlan {
  const steady: RunPlan = {
    offsetS: 0,
    durationS,
    judged: [{ fromS: Math.min(warmUpS, durationS / 2), toS: durationS }],
    cycle: null,
  };
  const cyclic = groups.filter((group) => group.arrival.kind !== "steady");
  if (cyclic.length === 0) return steady;
  const periodS = cyclePeriod(cyclic.map((group) => group.arrival));
  const rows = loadProfile(groups, periodS);
  const peak = Math.max(...rows);
  const trough = Math.min(...rows);
  // A cycle that never leaves its peak (a diurnal amplitude of 0) is a steady load.
  if (trough >= (1 - PEAK_BAND) * peak) return steady;
  const runs = peakRuns(rows, peak);
  const spans = runs.map((run) => judgedSpan(run, rows));
  const startS = startMs / 1000;
  // The run ends at the end of the first peak span it can hold whole, after the warm-up.
  const run = spans
    .map((span) => {
      const lengthS = Math.max(durationS, warmUpS + (span.toS - span.fromS));
      const ends = span.toS + periodS * Math.ceil((startS + lengthS - span.toS) / periodS);
      return { fromS: ends - lengthS, toS: ends, lengthS };
    })
    // The earliest end; a load that left its peak has at least one peak span.
    .reduce((best, each) => (each.toS < best.toS ? each : best));
  const judged: Span[] = [];
  for (const span of spans) {
    const length = span.toS - span.fromS;
    for (
      let from = span.fromS + periodS * Math.ceil((run.fromS + warmUpS - span.fromS) / periodS);
      from + length <= run.toS + 1e-9;
      from += periodS
    )
      judged.push({ fromS: from - run.fromS, toS: from + length - run.fromS });
  }
  judged.sort((a, b) => a.fromS - b.fromS);
  return {
    offsetS: run.fromS - startS,
    durationS: run.lengthS,
    judged,
    cycle: {
      periodS,
      peakRowsPerS: peak,
      troughRowsPerS: trough,
      peakLastsS: Math.max(...runs.map((each) => each.toS - each.fromS)),
      hourlyPeakRowsPerS: hourlyPeaks(rows, peak),
    },
  };
}

const HOUR_S = 3600;

/** The most rows/s in each wall-clock hour of the period (second 0 of the profile is a wall-clock hour's start). */
function hourlyPeaks(rows: Float64Array, peak: number): number[] {
  if (rows.length <= HOUR_S) return [peak];
  return Array.from({ length: Math.ceil(rows.length / HOUR_S) }, (_, hour) =>
    Math.max(...rows.subarray(hour * HOUR_S, Math.min(rows.length, (hour + 1) * HOUR_S))),
  );
}

/** The shortest period after which every pattern repeats (a day for a diurnal curve). */
function cyclePeriod(arrivals: readonly Arrival[]): number {
  const periods = arrivals.map((arrival) => (arrival.kind === "burst" ? Math.round(arrival.every) : DAY_S));
  const common = periods.reduce((a, b) => (a / gcd(a, b)) * b);
  return common <= MAX_PERIOD_S ? common : Math.max(...periods);
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** Rows written per second, all groups, at the middle of each wall-clock second of the period. */
function loadProfile(groups: readonly CycleGroup[], periodS: number): Float64Array {
  const rows = new Float64Array(periodS);
  for (const group of groups)
    for (let second = 0; second < periodS; second++)
      rows[second]! += group.rowsPerS * arrivalMultiplier(group.arrival, second + 0.5, 0);
  return rows;
}

/** Maximal runs of seconds (wall-clock, within the period; a run may wrap past its end) near the peak. */
function peakRuns(rows: Float64Array, peak: number): Span[] {
  const periodS = rows.length;
  const near = (second: number) => rows[((second % periodS) + periodS) % periodS]! >= (1 - PEAK_BAND) * peak;
  // Start the walk at a second off the peak (a cycle has one: a flat one is run as steady), so no
  // run is cut in two at the period's edge.
  let origin = 0;
  while (near(origin)) origin++;
  const runs: Span[] = [];
  for (let s = origin; s < origin + periodS; s++) {
    if (!near(s)) continue;
    const fromS = s;
    while (s < origin + periodS && near(s)) s++;
    runs.push({ fromS, toS: s });
  }
  return runs;
}

/** A peak run cut to at most MAX_JUDGED_SPAN_S around its busiest second. */
function judgedSpan(run: Span, rows: Float64Array): Span {
  if (run.toS - run.fromS <= MAX_JUDGED_SPAN_S) return run;
  let busiest = run.fromS;
  for (let s = run.fromS; s < run.toS; s++)
    if (rows[s % rows.length]! > rows[busiest % rows.length]!) busiest = s;
  const fromS = Math.min(Math.max(run.fromS, busiest - MAX_JUDGED_SPAN_S / 2), run.toS - MAX_JUDGED_SPAN_S);
  return { fromS, toS: fromS + MAX_JUDGED_SPAN_S };
}

/**
 * Latency from utilisation with an M/M/1 approximation per node: a request's time is a fixed base
 * (network, storage) plus an exponential sojourn with mean service/(1 − ρ). A node at or over
 * capacity queues up to a bound and sheds the excess (1 − 1/ρ of its demand).
 */
import type { LatencySettings } from "./model.js";

/** P(latency ≤ x ms) for one request of mean service `serviceMs` on a node at utilisation `rho`. */
export function requestCdf(x: number, rho: number, serviceMs: number, settings: LatencySettings): number {
  const waited = x - settings.baseMs;
  if (waited <= 0) return 0;
  if (rho >= 1) return waited >= settings.queueBoundMs ? 1 : 0;
  const meanMs = Math.min(serviceMs / (1 - rho), settings.queueBoundMs);
  return 1 - Math.exp(-waited / meanMs);
}

/** Share of a node's demand it cannot serve. */
export function shedShare(rho: number): number {
  return rho > 1 ? 1 - 1 / rho : 0;
}

const MIN_MS = 0.05;
const MAX_MS = 600_000;
const BUCKETS = 240;

/** Bucket edges, log-spaced from 0.05 ms to 10 minutes. */
export const LATENCY_EDGES_MS: readonly number[] = Array.from(
  { length: BUCKETS + 1 },
  (_, k) => MIN_MS * (MAX_MS / MIN_MS) ** (k / BUCKETS),
);

/** A mixture of latency distributions, weighted by request counts; quantiles read from log buckets. */
export class LatencyHistogram {
  private readonly mass = new Float64Array(BUCKETS + 1);
  private total = 0;

  /** Adds `weight` requests whose CDF at each edge is `cdfAtEdges[k]`. */
  add(weight: number, cdfAtEdges: ArrayLike<number>): void {
    if (!(weight > 0)) return;
    let previous = 0;
    for (let k = 0; k <= BUCKETS; k++) {
      const cdf = cdfAtEdges[k]!;
      this.mass[k]! += weight * (cdf - previous);
      previous = cdf;
    }
    this.total += weight;
  }

  /** The q-quantile in ms (upper edge of its bucket); NaN when empty. */
  quantile(q: number): number {
    if (this.total === 0) return Number.NaN;
    const target = q * this.total;
    let seen = 0;
    for (let k = 0; k <= BUCKETS; k++) {
      seen += this.mass[k]!;
      if (seen >= target) return LATENCY_EDGES_MS[k]!;
    }
    return MAX_MS;
  }
}

/** Utilisation is resolved to this step for the latency estimate (a hundred nodes share a few CDFs). */
const RHO_STEP = 1e-3;
const CACHED_CDFS = 4096;
const cdfs = new Map<string, Float64Array>();

/** CDF of one request on a node at `rho`, evaluated at every bucket edge (`rho` to a thousandth). */
export function cdfAtEdges(rho: number, serviceMs: number, settings: LatencySettings): Float64Array {
  const resolved = Math.round(rho / RHO_STEP) * RHO_STEP;
  const key = `${resolved}|${serviceMs}|${settings.baseMs}|${settings.queueBoundMs}`;
  let cdf = cdfs.get(key);
  if (cdf === undefined) {
    if (cdfs.size >= CACHED_CDFS) cdfs.clear();
    cdf = Float64Array.from(LATENCY_EDGES_MS, (x) => requestCdf(x, resolved, serviceMs, settings));
    cdfs.set(key, cdf);
  }
  return cdf;
}

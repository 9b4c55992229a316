import { checkCount } from "./option-error.js";

/**
 * The first read's size per bucket for a limit-bound read (latest-N) over several buckets, sized
 * so that a read ends in one round of parallel reads but once in a hundred.
 *
 * With rows spread over the buckets by a hash, the count of the first `limit` rows that fall in
 * one bucket is Binomial(limit, 1/buckets). A bucket is read again when the answer may hold more
 * of its rows than its first read returned, so a read takes a second round when any bucket holds
 * its share or more; the share is the smallest for which that chance, bounded by the sum over
 * buckets, is at most `SECOND_ROUND_CHANCE`. A second round costs a whole round trip (milliseconds
 * on Bigtable), an extra row in the first a few microseconds of the service's work and its bytes,
 * so the share leans to rows: 16 at latest-100 over 16 buckets (2.56× the limit in the first round),
 * 90 at latest-1000 (1.44×). A share of the mean plus three standard deviations per bucket (14 and
 * 87) sends 1 read in 17 and 1 in 45 to a second round, and most reads once buckets outnumber the
 * rows a bucket expects (latest-100 over 64 buckets: 1 in 3).
 */
export function bucketShare(limit: number, buckets: number): number {
  checkCount("limit", limit);
  checkCount("buckets", buckets);
  if (buckets === 1) return limit;
  const atLeast = binomialTails(limit, 1 / buckets);
  let share = Math.ceil(limit / buckets);
  while (share < limit && buckets * atLeast(share) > SECOND_ROUND_CHANCE) share++;
  return share;
}

/** The chance a read takes a second round that the share aims under: one read in a hundred. */
export const SECOND_ROUND_CHANCE = 0.01;

/** Terms below this fraction of the largest are left out of the tails: far below any chance asked. */
const NEGLIGIBLE = 1e-16;

/**
 * P(X ≥ k) for X ~ Binomial(n, p), 0 < p < 1. The terms are built outward from the mode, where
 * they are largest, so none underflows however large n is; terms under `NEGLIGIBLE` of the mode's
 * are left out (a few dozen standard deviations each side at most).
 */
export function binomialTails(n: number, p: number): (k: number) => number {
  const mode = Math.min(n, Math.floor((n + 1) * p));
  const odds = p / (1 - p);
  const down: number[] = [];
  for (let k = mode, term = 1; k > 0 && term > NEGLIGIBLE; k--) {
    term *= k / (n - k + 1) / odds;
    down.push(term);
  }
  const up: number[] = [1];
  for (let k = mode, term = 1; k < n && term > NEGLIGIBLE; k++) {
    term *= ((n - k) / (k + 1)) * odds;
    up.push(term);
  }
  // terms[i] is proportional to P(X = lowest + i); atLeast[i] to P(X ≥ lowest + i).
  const terms = [...down.reverse(), ...up];
  const lowest = mode - down.length;
  const atLeast = terms.slice();
  for (let i = atLeast.length - 2; i >= 0; i--) atLeast[i]! += atLeast[i + 1]!;
  const total = atLeast[0]!;
  return (k) => (k <= lowest ? 1 : k - lowest >= terms.length ? 0 : atLeast[k - lowest]! / total);
}

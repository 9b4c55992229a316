/**
 * The first read's size per bucket for a limit-bound read (latest-N) over several buckets, sized
 * so that the common case ends in one round of parallel reads.
 *
 * With rows spread over the buckets by a hash, the count of the first `limit` rows that fall in
 * one bucket is Binomial(limit, 1/buckets): mean limit/buckets, standard deviation below
 * √(limit/buckets). Each bucket first reads the mean plus three deviations; a bucket is read
 * again only when the answer holds that many of its rows (the merge must then see its next row):
 * 1 read in 17 at latest-100 over 16 buckets (share 14), 1 in 45 at latest-1000 (share 87). The
 * first round scans at most `buckets × share` rows: 2.24× the limit at latest-100, 1.4× at
 * latest-1000.
 */
export function bucketShare(limit: number, buckets: number): number {
  if (!(Number.isInteger(limit) && limit >= 1))
    throw new RangeError(`limit is ${limit}; allowed: a whole number ≥ 1`);
  if (!(Number.isInteger(buckets) && buckets >= 1)) {
    throw new RangeError(`buckets is ${buckets}; allowed: a whole number ≥ 1`);
  }
  const mean = limit / buckets;
  return Math.min(limit, Math.ceil(mean + 3 * Math.sqrt(mean)));
}

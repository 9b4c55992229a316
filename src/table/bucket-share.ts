/**
 * The first read's size per bucket for a limit-bound read (latest-N) over several buckets, sized
 * so that the common case ends in one round of parallel reads.
 *
 * With rows spread over the buckets by a hash, the count of the first `limit` rows that fall in
 * one bucket is Binomial(limit, 1/buckets): mean limit/buckets, standard deviation below
 * √(limit/buckets). Reading the mean plus three deviations from each bucket leaves a bucket short
 * in about 1 read in 700 per bucket (1 in 45 for 16 buckets at latest-100), and scans at most
 * `buckets × share` rows in that round: 224 for latest-100 over 16 buckets, 1.4× the limit
 * at latest-1000.
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

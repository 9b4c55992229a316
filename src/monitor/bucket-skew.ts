/** How unevenly load falls on salt buckets (or nodes): the numbers the fleet incident's dashboards lacked. Pure. */
import { median } from "../stats/median.js";

export interface BucketSkew {
  /** Load of the busiest bucket. */
  max: number;
  mean: number;
  median: number;
  /** max / mean: 1 is perfectly even, the bucket count means one bucket takes everything. */
  skew: number;
  /** Index of the busiest bucket (the lowest on ties), −1 when there are no buckets. */
  hottest: number;
}

/** A bucket's load that is not a number ≥ 0. */
export class BucketLoadError extends RangeError {
  override readonly name = "BucketLoadError";
  constructor(
    readonly bucket: number,
    readonly load: number,
  ) {
    super(`load of bucket ${bucket} is ${load}; expected a number ≥ 0`);
  }
}

export function bucketSkew(loads: readonly number[]): BucketSkew {
  if (loads.length === 0) return { max: 0, mean: 0, median: 0, skew: 1, hottest: -1 };
  let hottest = 0;
  let sum = 0;
  for (let bucket = 0; bucket < loads.length; bucket++) {
    const load = loads[bucket]!;
    if (!(load >= 0)) throw new BucketLoadError(bucket, load);
    sum += load;
    if (load > loads[hottest]!) hottest = bucket;
  }
  const max = loads[hottest]!;
  const mean = sum / loads.length;
  return { max, mean, median: median(loads), skew: mean === 0 ? 1 : max / mean, hottest };
}

/**
 * Load on the key space over time: the input a heatmap is drawn from. The simulator emits it
 * per design; access logs are binned into the same shape, so both render alike.
 */

/** Load on one contiguous key range during one time step, as rates per second. */
export interface KeyRangeLoad {
  start: Buffer;
  /** Exclusive; null is the end of the table. */
  end: Buffer | null;
  readsPerS: number;
  writesPerS: number;
  /** Rows read by range scans per second (0 when the step had none). */
  scannedRowsPerS: number;
  bytesPerS: number;
  /**
   * Bytes stored in the range, when known. Heatmaps measure "how much of the key space" a hot band
   * covers in stored data, as Key Visualizer's equal-size buckets do; without it they count ranges,
   * and a simulator that splits hot tablets gives a hot range many ranges, hiding how narrow it is.
   */
  storedBytes?: number;
  /** The node serving the range (simulations), and that node's CPU in 0..1+ (over 1 = saturated). */
  node?: number;
  nodeCpu?: number;
}

export interface LoadStep {
  /** Start of the step, seconds since the start of the run. */
  t: number;
  durationS: number;
  /** Sorted by `start`, non-overlapping. */
  ranges: KeyRangeLoad[];
}

/** The thresholds each pattern rule uses; exported so docs and tests name the same numbers. */
export const RULES = {
  /**
   * A contiguous range whose load per key is `minContrast`× that of the rest of the table, carrying
   * ≥ `minShare` of the load on ≤ `maxKeyFraction` of the key space, and ≥ `minColumnContrast`× the
   * rest in ≥ `minColumns` of the active columns. With saturated nodes (simulations) the node CPU
   * already says the load hurts, so the band may be wider and the contrast lower: it names where
   * the load that saturates them is.
   */
  hotBand: {
    minContrast: 5,
    minShare: 0.25,
    maxKeyFraction: 0.15,
    minColumnContrast: 2,
    minColumns: 0.8,
    withSaturatedNodes: { minContrast: 2, maxKeyFraction: 0.9 },
    maxBands: 3,
  },
  /**
   * One row, or a range of at most `maxKeyFraction` of the key space, carrying ≥ `minShare` of the
   * load (and ≥ `minContrast`× its key share) in every column of a run of ≥ `minDurationS`.
   */
  hotRow: { minShare: 0.1, minContrast: 5, minDurationS: 300, maxKeyFraction: 0.02, maxRows: 5 },
  diagonal: {
    window: 0.05,
    minPeakRatio: 3,
    minPeakedColumns: 0.5,
    minConcentration: 0.4,
    minCorrelation: 0.8,
    minTravel: 0.3,
  },
  bursts: { minColumnRatio: 2.5, minPeriodicEvents: 3, maxSpacingVariation: 0.3, minFullHeight: 0.7 },
  sudden: { minRatio: 5, minQuietColumns: 0.1, minHotColumns: 3, minSustained: 0.7, minShare: 0.2 },
  healthy: { topKeyFraction: 0.1, maxTopShare: 0.25, maxDensityRatio: 4 },
  /** Simulations: ranges whose node ran at ≥ HOT_CPU (Google's 90 % hottest-node guidance). */
  hotNodes: { minColumns: 0.8, clusterKeyFraction: 0.8, clusterOtherCpu: 0.7, maxGapRows: 0.05, maxBands: 3 },
  /**
   * A band is named by its keys' common prefix (`acme-*`) only when that prefix adds at most
   * `maxOutsideKeys` (relative to the band's own key share) of key space the band does not hold.
   */
  naming: { maxOutsideKeys: 0.1 },
} as const;

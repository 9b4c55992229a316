/**
 * Nodes a steady state needs to meet Google's CPU guidance (average ≤ 70 %, hottest node ≤ 90 %).
 * Spread load scales with nodes: the fewest meeting both limits at the same total CPU and the same
 * hottest/average ratio. Load on a key range does not: that range stays on one node whatever the
 * count, so the hottest node is what it is (over the limit: no count helps, null), and the rest of
 * the load spreads over the other nodes — fewer nodes suffice when the load is light.
 */
export interface SteadyLoad {
  averageNodeCpu: number;
  hottestNodeCpu: number;
  maxOverMedian: number;
}

export interface CpuLimits {
  average: number;
  hottest: number;
  /** Hottest/median at or under this counts as spread. */
  spreadRatio: number;
}

/** Nodes under this CPU count as this much in the hottest/average ratio, so an idle cluster is flat. */
const CPU_FLOOR = 0.01;

/** Rounding noise in a sum of CPU fractions (35 × 0.02 is 0.7000000000000001), not load. */
const ROUNDING = 1e-9;

export function cpuNodesNeeded(state: SteadyLoad, nodes: number, limits: CpuLimits): number | null {
  const { averageNodeCpu: average, hottestNodeCpu: hottest } = state;
  const total = average * nodes;
  const fewest = (count: number) => Math.max(1, Math.ceil(count - ROUNDING));
  // On one node all of it is the hottest and the average: no ratio measured on many nodes applies.
  if (total <= Math.min(limits.average, limits.hottest) + ROUNDING) return 1;
  if (state.maxOverMedian > limits.spreadRatio) {
    if (hottest > limits.hottest) return null;
    // The hot range keeps its node; the rest needs enough other nodes to stay under the hottest limit.
    const rest = Math.max(0, total - hottest);
    return fewest(Math.max(total / limits.average, (rest > 0 ? 1 : 0) + rest / limits.hottest));
  }
  const hotRatio = hottest / Math.max(average, CPU_FLOOR);
  return fewest(Math.max(total / limits.average, (total * hotRatio) / limits.hottest));
}

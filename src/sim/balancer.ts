/**
 * The balancer: every period it moves up to `movesPerPeriod` tablets from the hottest node to the
 * coldest, choosing the tablet that best evens the pair, and stops when the hottest node is within
 * `imbalance` of the mean, the hottest and coldest are within `minGap`, or no move would lower the maximum. The throttle is why adaptation takes
 * minutes to hours.
 */
import type { Tablet } from "./tablets.js";

/**
 * Moves tablets in place given each tablet's cost over the period (node-seconds); `minGap` is in
 * the same unit. Returns how many moved.
 */
export function rebalance(
  tablets: Tablet[],
  nodeCount: number,
  movesPerPeriod: number,
  imbalance: number,
  minGap: number,
): number {
  const nodeLoad = new Float64Array(nodeCount);
  for (const tablet of tablets) nodeLoad[tablet.node]! += tablet.periodCost;
  const mean = nodeLoad.reduce((sum, load) => sum + load, 0) / nodeCount;
  let moves = 0;
  while (moves < movesPerPeriod) {
    const hot = argExtreme(nodeLoad, (a, b) => a > b);
    const cold = argExtreme(nodeLoad, (a, b) => a < b);
    const gap = nodeLoad[hot]! - nodeLoad[cold]!;
    if (mean <= 0 || nodeLoad[hot]! <= mean * (1 + imbalance) || gap <= minGap) break;
    // The best tablet to move carries closest to half the gap; one carrying the whole gap or more
    // would only move the hotspot.
    let best: Tablet | null = null;
    for (const tablet of tablets) {
      if (tablet.node !== hot || tablet.periodCost <= 0 || tablet.periodCost >= gap) continue;
      if (best === null || Math.abs(tablet.periodCost - gap / 2) < Math.abs(best.periodCost - gap / 2)) {
        best = tablet;
      }
    }
    if (best === null) break;
    nodeLoad[hot]! -= best.periodCost;
    nodeLoad[cold]! += best.periodCost;
    best.node = cold;
    moves++;
  }
  return moves;
}

function argExtreme(values: Float64Array, better: (a: number, b: number) => boolean): number {
  let index = 0;
  for (let i = 1; i < values.length; i++) if (better(values[i]!, values[index]!)) index = i;
  return index;
}

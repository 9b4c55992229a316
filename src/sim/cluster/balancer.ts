/**
 * The balancer: every period it moves load from nodes above the mean to nodes below it, a share of
 * each node's excess at a time, so a cluster closes 90 % of an imbalance in `rebalanceTime` (Google:
 * "a few minutes" to "up to 20 minutes" under load) whatever its size, its tablet count or how
 * finely splits have cut the load. It never moves a tablet that carries the whole gap (that only
 * moves the hotspot) — one hot row stays where it is.
 */
import type { Tablet } from "./tablets.js";

export interface BalanceSettings {
  /** Acts only when the hottest node is this share above the mean… */
  imbalance: number;
  /** …and this much CPU above the coldest. */
  minCpuGap: number;
  /** Share of each node's excess over the mean moved per period. */
  closeShare: number;
}

/** The share of a gap closed per period so that 90 % of it is closed after `rebalanceS`. */
export function closeSharePerPeriod(periodS: number, rebalanceS: number): number {
  return 1 - 0.1 ** (periodS / rebalanceS);
}

/**
 * Moves tablets in place given each tablet's `lastPeriodCost` (node-seconds over `periodS`); returns
 * how many moved. Each node above the mean gives a share of its excess, to the coolest nodes, never
 * filling one past the mean; its first move of a period may exceed that share (and the mean) if it
 * still lowers the pair's hotter node, so coarse tablets move too.
 */
export function rebalance(
  tablets: Tablet[],
  nodeCount: number,
  periodS: number,
  settings: BalanceSettings,
): number {
  const load = new Float64Array(nodeCount);
  for (const tablet of tablets) load[tablet.node]! += tablet.lastPeriodCost / periodS;
  const mean = load.reduce((sum, value) => sum + value, 0) / nodeCount;
  const hottest = Math.max(...load);
  if (
    !(mean > 0) ||
    hottest <= mean * (1 + settings.imbalance) ||
    hottest - Math.min(...load) <= settings.minCpuGap
  )
    return 0;
  const give = Float64Array.from(load, (value) =>
    value > mean * (1 + settings.imbalance) ? settings.closeShare * (value - mean) : 0,
  );
  const byNode = new Map<number, Tablet[]>();
  for (const tablet of tablets) {
    if (give[tablet.node]! > 0 && tablet.lastPeriodCost > 0) {
      const list = byNode.get(tablet.node) ?? [];
      list.push(tablet);
      byNode.set(tablet.node, list);
    }
  }
  let moves = 0;
  const donors = [...byNode.entries()].sort(([a], [b]) => load[b]! - load[a]!);
  for (const [donor, tablets] of donors) {
    const list = tablets.sort((a, b) => b.lastPeriodCost - a.lastPeriodCost);
    let moved = false;
    for (const tablet of list) {
      if (moved && give[donor]! <= 0) break;
      const x = tablet.lastPeriodCost / periodS;
      if (moved && x > give[donor]!) continue;
      const receiver = coolest(load);
      // Load that would leave the receiver as hot as the donor only moves the hotspot; past the
      // mean it overshoots, allowed only for a donor's first move.
      if (load[receiver]! + x >= load[donor]! || (moved && load[receiver]! + x > mean)) continue;
      tablet.node = receiver;
      load[donor]! -= x;
      load[receiver]! += x;
      give[donor]! -= x;
      moved = true;
      moves++;
    }
  }
  return moves;
}

function coolest(load: Float64Array): number {
  let best = 0;
  for (let node = 1; node < load.length; node++) if (load[node]! < load[best]!) best = node;
  return best;
}

/**
 * The end of a balancer period: each tablet's cost and operations over the period are read, cold
 * neighbours merge, then the balancer moves load between nodes.
 */
import { type BalanceSettings, rebalance } from "../cluster/balancer.js";
import type { TabletSettings } from "../cluster/model.js";
import { COST, QUANTITIES, RANGE_READS, STORED, WRITES } from "../cluster/tablets.js";
import type { SplitCheck } from "./split-check.js";
import type { TabletLoad } from "./tablet-load.js";

/** Closes the balancer period of `periodS` ending at `nowS`. Returns the tablets moved. */
export function closeBalancePeriod(
  load: TabletLoad,
  splitCheck: SplitCheck,
  settings: TabletSettings,
  balance: BalanceSettings,
  periodS: number,
  nowS: number,
): number {
  load.syncAll();
  const { tablets } = load;
  const odometer = tablets.columns.odometer;
  for (const tablet of tablets.tablets) {
    const row = tablet.slot * QUANTITIES;
    const cost = odometer[row + COST]!;
    const ops = odometer[row + WRITES]! + odometer[row + RANGE_READS]!;
    tablet.lastPeriodCost = cost - tablet.atPeriodCost;
    tablet.lastPeriodOps = ops - tablet.atPeriodOps;
    tablet.atPeriodCost = cost;
    tablet.atPeriodOps = ops;
  }
  const coldOps = settings.mergeLoadShare * settings.splitOpsPerS * periodS;
  tablets.mergeEach(
    (left, right) =>
      !right.initialBoundary &&
      nowS - left.bornS >= settings.mergeAge &&
      nowS - right.bornS >= settings.mergeAge &&
      left.lastPeriodOps + right.lastPeriodOps < coldOps &&
      load.read(left, STORED) + load.read(right, STORED) < settings.splitBytes / 2,
    (joined, gone) => splitCheck.merged(joined, gone),
  );
  const moves = rebalance(tablets.tablets, load.nodes, periodS, balance);
  load.sumNodes();
  return moves;
}

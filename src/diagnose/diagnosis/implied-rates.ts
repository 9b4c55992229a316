/**
 * The write rate the hot-tablets evidence implies when the user gives none: each hot range's CPU
 * share of a node, times a node's sourced write capacity. A floor (it counts only the hot ranges'
 * writes), said so in the scenario. Pure.
 */
import type { WorkloadRates } from "../../advise/infer/rates.js";
import { MODEL_CONSTANTS } from "../../sim/cluster/model-constants.js";
import type { HotRange } from "../decode/hot-tablet.js";

export function impliedRates(
  hotRanges: readonly HotRange[],
  storage: "ssd" | "hdd",
): WorkloadRates | undefined {
  const perNode =
    storage === "ssd" ? MODEL_CONSTANTS.ssdWritesPerS.value : MODEL_CONSTANTS.hddWritesPerS.value;
  const writesPerS = Math.round(
    hotRanges.reduce((sum, range) => sum + (range.maxCpuPercent / 100) * perNode, 0),
  );
  return writesPerS > 0 ? { writesPerS, reads: [] } : undefined;
}

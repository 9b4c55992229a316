/**
 * What the hot-tablets evidence says about load: the peak — the instant when the most CPU was
 * hot at once, each range counted once — and the write rate a node's CPU share stands for. Rates
 * come from that one instant, never from windows summed (the same tail tablet hot in four windows
 * is one tablet's load, not four). A peak that more nodes than the cluster has would be needed to
 * carry is refused, with the arithmetic. Pure.
 */
import { writeCost } from "../../sim/cluster/cluster.js";
import { defaultCostModel } from "../../sim/cluster/model.js";
import type { HotTablet } from "../decode/hot-tablet.js";
import { DiagnoseRefusal } from "./refusal.js";

/** The hot tablets at the peak instant. */
export interface PeakHeat {
  /** The instant (a tablet's window start) with the most hot CPU at once. */
  at: Date;
  /** Each hot key range at that instant (`startHex:endHex`) and its CPU %, hottest first. */
  ranges: { id: string; cpuPercent: number }[];
  /** Sum of their CPU %, in % of one node (300 = three nodes' whole CPU). */
  totalCpuPercent: number;
}

export const rangeIdOf = (range: { startKey: Buffer; endKey: Buffer }) =>
  `${range.startKey.toString("hex")}:${range.endKey.toString("hex")}`;

/** The instant whose overlapping windows hold the most hot CPU (a range counted once, at its CPU then). */
export function peakHeat(tablets: readonly HotTablet[]): PeakHeat | undefined {
  let best: PeakHeat | undefined;
  const instants = [...new Set(tablets.map((tablet) => tablet.startTime.getTime()))].sort((a, b) => a - b);
  for (const at of instants) {
    const byRange = new Map<string, number>();
    for (const tablet of tablets) {
      if (tablet.startTime.getTime() > at || tablet.endTime.getTime() <= at) continue;
      const id = rangeIdOf(tablet);
      byRange.set(id, Math.max(byRange.get(id) ?? 0, tablet.nodeCpuPercent));
    }
    const total = [...byRange.values()].reduce((sum, cpu) => sum + cpu, 0);
    if (best === undefined || total > best.totalCpuPercent)
      best = {
        at: new Date(at),
        ranges: [...byRange]
          .map(([id, cpuPercent]) => ({ id, cpuPercent }))
          .sort((a, b) => b.cpuPercent - a.cpuPercent),
        totalCpuPercent: total,
      };
  }
  return best;
}

/** Writes per second that one node's whole CPU carries, at the model's defaults for this row size. */
export function writesPerNode(storage: "ssd" | "hdd", rowBytes: number): number {
  return 1 / writeCost(rowBytes, defaultCostModel(storage));
}

/** Writes per second a CPU share (in %) of one node stands for. */
export const writesForCpu = (cpuPercent: number, storage: "ssd" | "hdd", rowBytes: number) =>
  (cpuPercent / 100) * writesPerNode(storage, rowBytes);

/** Refuses a peak that more nodes than the cluster's would be needed to carry. */
export function checkCarried(peak: PeakHeat, nodes: number): void {
  if (peak.totalCpuPercent <= nodes * 100) return;
  const shown = peak.ranges.slice(0, 6).map((range) => `${range.cpuPercent} %`);
  throw new DiagnoseRefusal(
    "peak-exceeds-nodes",
    `hot tablets: at ${peak.at.toISOString()} ${peak.ranges.length} hot tablets add up to ${peak.totalCpuPercent.toFixed(0)} % of a node's CPU (${shown.join(" + ")}${peak.ranges.length > shown.length ? " + …" : ""}), more than ${nodes} node${nodes === 1 ? "" : "s"} can carry (${nodes} × 100 % = ${nodes * 100} %): the answer is of another cluster, or --nodes is wrong`,
    {
      at: peak.at.toISOString(),
      hotTablets: peak.ranges.length,
      totalCpuPercent: peak.totalCpuPercent,
      nodes,
    },
    false,
  );
}

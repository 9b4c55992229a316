/**
 * What a cyclic load costs under an autoscaler: the fewest and the most nodes it would run over the
 * cycle, at the stated growth, each priced for a month. Bigtable bills each hour at that hour's
 * most nodes ("Bigtable pricing", https://cloud.google.com/bigtable/pricing), so a month of a
 * cyclic load costs between the two ends, and `billedCost` adds it up hour by hour: each wall-clock
 * hour of the cycle at the nodes its busiest second needs (**assumption**: the autoscaler follows the
 * load within the hour, which a curve that moves over hours allows). Where a peak is shorter than the autoscaler's reaction
 * (`followsPeak` false: the nodes it adds arrive after the burst, Google, "Scaling",
 * https://cloud.google.com/bigtable/docs/scaling), the cluster must be provisioned for the peak,
 * and the honest figure is the top of the range.
 *
 * The nodes follow the simulator's autoscaler (summary.cycle): ⌈demand × simulated nodes × growth ÷
 * the CPU target⌉ at the cycle's trough and peak — growth multiplies the demand, as it does in
 * sizing.ts — and never fewer than the nodes the bytes kept need (Bigtable's autoscaler also keeps
 * storage within its target, "Autoscaling", https://cloud.google.com/bigtable/docs/autoscaling).
 */
import type { CycleSummary } from "../../sim/results/results.js";
import type { Scenario, Storage } from "../../sim/scenario/scenario.js";
import { mean } from "../../stats/mean.js";
import { type MonthlyCost, monthlyCost } from "./cost.js";
import type { NodesNeeded } from "./sizing.js";

export interface AutoscaledRange {
  /** The growth the range is for (1: today). */
  growth: number;
  cpuTarget: number;
  minNodes: number;
  maxNodes: number;
  /** A month on the fewest nodes, and on the most. */
  minCost: MonthlyCost;
  maxCost: MonthlyCost;
  /** A month billed hour by hour over the cycle; the top of the range when the peak must be provisioned for. */
  billedCost: MonthlyCost;
  /** How long the load stays at its peak, and how long added nodes take to carry load. */
  peakLastsS: number;
  reactionS: number;
  /** False: the peak is over before added nodes help, so provision for it. */
  followsPeak: boolean;
}

export function autoscaledRange(
  scenario: Scenario,
  cycle: CycleSummary,
  simulatedNodes: number,
  atGrowth: Pick<NodesNeeded, "storage" | "storedBytes">,
  storage: Storage,
  growth: number,
): AutoscaledRange {
  const { autoscaler, averageNodeCpu } = cycle;
  const nodesAt = (cpu: number) =>
    Math.max(1, atGrowth.storage, Math.ceil((cpu * simulatedNodes * growth) / autoscaler.cpuTarget - 1e-9));
  const minNodes = nodesAt(averageNodeCpu.trough);
  const maxNodes = Math.max(minNodes, nodesAt(averageNodeCpu.peak));
  const priced = (nodes: number) => monthlyCost(scenario, nodes, storage, atGrowth.storedBytes);
  const hourly = cycle.hourlyPeakNodeCpu.map((cpu) => Math.max(minNodes, nodesAt(cpu)));
  const billedNodes = autoscaler.followsPeak ? mean(hourly) : maxNodes;
  return {
    growth,
    cpuTarget: autoscaler.cpuTarget,
    minNodes,
    maxNodes,
    minCost: priced(minNodes),
    maxCost: priced(maxNodes),
    billedCost: priced(billedNodes),
    peakLastsS: cycle.peakLastsS,
    reactionS: autoscaler.reactionS,
    followsPeak: autoscaler.followsPeak,
  };
}

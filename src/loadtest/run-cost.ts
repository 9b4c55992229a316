/**
 * What a load test costs before it starts: the test instance's node-hours over the run, and the
 * bytes it writes kept for the run (a table growing steadily holds half its final size on
 * average), at the scenario's list prices (advise/size/cost.ts). Data left after the run is billed
 * until it is deleted; network and the client machines are not priced. Pure.
 */
import { monthlyCost } from "../advise/size/cost.js";
import type { ScaledScenario } from "./scaled-scenario.js";

const HOURS_PER_MONTH = 730;

export interface RunCost {
  nodeHours: number;
  nodeDollars: number;
  /** Bytes written over the run (rows × their declared size, before compression). */
  writtenBytes: number;
  storageDollars: number;
  totalDollars: number;
}

export function runCost(scaled: ScaledScenario, durationS: number): RunCost {
  const { scenario, design } = scaled;
  const nodes = design.nodes ?? scenario.cluster.nodes;
  const hours = durationS / 3600;
  const writtenBytes = scenario.workload.groups.reduce(
    (sum, group) => sum + group.writesPerS * (group.rowBytes ?? scenario.workload.rowBytes) * durationS,
    0,
  );
  const storage = design.storage ?? scenario.cluster.storage;
  const perMonth = monthlyCost(scenario, nodes, storage, writtenBytes / 2);
  const nodeDollars = (perMonth.nodes * hours) / HOURS_PER_MONTH;
  const storageDollars = (perMonth.storage * hours) / HOURS_PER_MONTH;
  return {
    nodeHours: nodes * hours,
    nodeDollars,
    writtenBytes,
    storageDollars,
    totalDollars: nodeDollars + storageDollars,
  };
}

export function describeRunCost(cost: RunCost, nodes: number, durationS: number): string {
  const money = (amount: number) => `$${amount.toFixed(2)}`;
  return `expected cost: ${nodes} node(s) × ${(durationS / 3600).toFixed(2)} h = ${cost.nodeHours.toFixed(2)} node-hours ≈ ${money(cost.nodeDollars)}; ${Number((cost.writtenBytes / 2 ** 30).toPrecision(3))} GiB written, kept over the run ≈ ${money(cost.storageDollars)}; total ≈ ${money(cost.totalDollars)} at the scenario's list prices (the instance is billed while it exists; delete the data after)\n`;
}

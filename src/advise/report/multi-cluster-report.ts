/**
 * The multi-cluster answer in words and two tables (clusters; paths), for `lab` and `advise`:
 * the clusters and nodes each needs, the app profile each path uses and why, the staleness each
 * path can see, what losing a cluster does, and the cost next to the single-cluster answer.
 */
import { alignColumns } from "../../format/columns.js";
import { MODEL_CONSTANTS } from "../../sim/cluster/model-constants.js";
import { formatDuration } from "../../sim/scenario/duration.js";
import type { MultiClusterAnswer, RoutingAdvice } from "../judge/multi-cluster.js";
import { percent } from "../judge/score.js";
import { dollars } from "../size/cost.js";

const shareList = (shares: Record<string, number>) =>
  Object.entries(shares)
    .filter(([, share]) => share > 0)
    .map(([cluster, share]) => `${cluster} ${percent(share)}`)
    .join(", ");

const lagText = (answer: MultiClusterAnswer) => {
  const { low, high, basis } = MODEL_CONSTANTS.replicationLagS;
  return `${formatDuration(answer.lagS)} (${low}–${high} s, an ${basis})`;
};

function suitsText(suits: RoutingAdvice): string {
  if (suits.wants === "pinned-with-writes")
    return suits.met
      ? "suits it: the newest points must show what was just written"
      : "does NOT suit it: the newest points must show what was just written (pin it with the writes to one cluster)";
  const window = `its window is ${Math.round(suits.windowOverLag).toLocaleString("en-US")}× the lag`;
  return suits.met
    ? `suits it: ${window}`
    : `works, though multi-cluster routing would spread it and fail over by itself (${window})`;
}

/** Paragraphs (to wrap), table lines (as they are), or a list (a heading line, then one item per line). */
export interface ReportPart {
  kind: "text" | "table" | "list";
  lines: string[];
}

export function multiClusterReport(answer: MultiClusterAnswer): ReportPart[] {
  const { targets } = answer;
  const text = (...lines: string[]): ReportPart => ({ kind: "text", lines });
  const nodes = answer.clusters.map((plan) => plan.nodes);
  const clusterTable = alignColumns([
    ["cluster", "region", "simulated on", "average", "hottest", "CPU nodes", "storage nodes", "nodes"],
    ...answer.clusters.map((plan) => [
      plan.cluster,
      plan.region,
      `${plan.simulatedNodes} nodes`,
      percent(plan.normal.averageCpu),
      percent(plan.normal.hottestCpu),
      plan.needed.cpu === null ? "more won't help" : String(plan.needed.cpu),
      String(plan.needed.storage),
      String(plan.nodes),
    ]),
  ]);
  const pathLines = answer.paths.map((route) => {
    const where = `${route.profile} (${route.routing}: ${shareList(route.shares)})`;
    if (route.readYourWrites === null) return `${route.path} → ${where}.`;
    const sees = route.readYourWrites
      ? "reads its writes"
      : `can miss writes for up to ${formatDuration(route.stalenessS)}`;
    return `${route.path} → ${where}: ${sees}; ${suitsText(route.suits)}.`;
  });
  const failoverLines = answer.failovers.map((failover) => {
    const when =
      failover.atS === null
        ? ""
        : ` (at ${formatDuration(failover.atS)} for ${formatDuration(failover.forS)})`;
    const survivors = failover.survivors
      .map(
        (run) =>
          `${run.cluster} runs at ${percent(run.averageCpu)} average, ${percent(run.hottestCpu)} hottest on ${run.nodes} nodes${run.shedWriteShare > 0 || run.shedReadShare > 0 ? `, shedding ${percent(Math.max(run.shedWriteShare, run.shedReadShare))}` : ", shedding nothing"}`,
      )
      .join("; ");
    const manual =
      failover.manualFailover.length === 0
        ? ""
        : ` Pinned to the lost cluster, ${failover.manualFailover.join(" and ")} stop until someone fails their single-cluster profile over by hand (Google, "Failovers"); the figures assume they then run on the survivor.`;
    return `Losing ${failover.down}${when}: ${survivors}.${manual} ${failover.meets ? "The survivors stay within Google's single-cluster targets." : "The survivors do not stay within Google's single-cluster targets."}`;
  });
  const single =
    answer.singleClusterCost && answer.singleClusterNodes !== null
      ? `, against ${dollars(answer.singleClusterCost.total)}/month for one cluster of ${answer.singleClusterNodes} nodes (one zone, no failover)`
      : "";
  return [
    text(
      `Multi-cluster (the scenario's replication): ${answer.design} on ${answer.clusters.map((plan) => plan.cluster).join(" and ")}; ${targets.basis}: Google's target: average CPU ≤ ${percent(targets.averageCpu)} per cluster, hottest node ≤ ${percent(targets.hottestCpu)} (Google Cloud, "Monitoring"). Every cluster applies every write and keeps its own copy of the data (replication "does not increase write throughput", Google, "Replication and performance"); reads go where their app profile routes them.`,
    ),
    { kind: "table", lines: clusterTable },
    text(
      `Nodes: the CPU each cluster runs at on the nodes it was simulated on; its nodes for CPU at the target and for storage; and the nodes it needs, the larger of the two, raised where a survivor needs more to carry a lost cluster's traffic within 70 % average and 90 % hottest. ${answer.meets ? "The design meets the targets on these nodes, and every failover case holds." : "The design does not meet every target: see the failover cases."}`,
    ),
    { kind: "list", lines: ["App profile per path:", ...pathLines] },
    text(
      `Staleness: replication is eventually consistent; a read whose writes go to another cluster (or to the nearest one) can miss writes for up to the replication lag, ${lagText(answer)}. A read pinned with its writes to one cluster (single-cluster routing on both) reads its writes (Google, "Replication overview", consistency model).`,
    ),
    text(...failoverLines),
    text(
      `Cost: ${dollars(answer.cost.total)}/month for ${nodes.join(" + ")} nodes and ${answer.clusters.length} copies of the data (${dollars(answer.cost.nodes)} nodes + ${dollars(answer.cost.storage)} storage)${single}.`,
    ),
  ];
}

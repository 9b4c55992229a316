/**
 * The cluster options in words (advise/judge/cluster-options.ts): what the autoscaler's targets
 * should be and what its storage target changes, 2× node scaling where one hot range sizes the
 * cluster (a new cluster), and tiered storage (Preview) — offered, or in one line why not.
 */
import { formatBytes } from "../../format/bytes.js";
import { formatDuration } from "../../sim/scenario/duration.js";
import type {
  AutoscalerTargets,
  ClusterOptions,
  NodeScalingOption,
  TieredStorageOption,
} from "../judge/cluster-options.js";
import { percent } from "../judge/score.js";
import { dollars } from "../size/cost.js";

const nodes = (count: number | null) =>
  count === null ? "no node count" : `${count} node${count === 1 ? "" : "s"}`;
const gib = (value: number) => `${value.toLocaleString("en-US")} GiB`;

function autoscalerLine(targets: AutoscalerTargets): string {
  const settings = `cpuTarget ${percent(targets.cpuTarget)}, storageTargetGiBPerNode ${gib(targets.storageTargetGiBPerNode)}, minNodes ${targets.minNodes}, maxNodes ${targets.maxNodes}`;
  const changes =
    targets.storageNodesAtTarget === targets.storageNodesAtPlannedShare
      ? `at that storage target the ${formatBytes(targets.storedBytes)} kept need ${nodes(targets.storageNodesAtTarget)}, as at 70 % of a node's limit`
      : `at that storage target the ${formatBytes(targets.storedBytes)} kept need ${nodes(targets.storageNodesAtTarget)}, against ${targets.storageNodesAtPlannedShare} at 70 % of a node's limit${targets.declared ? "" : ` (storageTargetGiBPerNode ${gib(targets.storageTargetForPlannedShare)} keeps the 70 % plan)`}`;
  const rule = targets.maxWithinTenTimesMin
    ? ""
    : ` maxNodes ${targets.maxNodes} is over 10 × minNodes ${targets.minNodes}: Bigtable refuses it; raise minNodes to ${Math.ceil(targets.maxNodes / 10)}.`;
  const covers = targets.coversNeeded
    ? ""
    : ` The range stops below the ${nodes(targets.nodesNeeded)} needed: raise maxNodes.`;
  return `${targets.declared ? "Autoscaling as declared" : "To autoscale this cluster, set"}: ${settings}; ${changes}.${rule}${covers}`;
}

function nodeScalingLine(option: NodeScalingOption): string {
  const hot = `the current key's hot range runs its node at ${percent(option.hottestCpuAt1x)} of a standard node and ${percent(option.hottestCpuAt2x)} of a 2× compute node`;
  if (!option.offered) return `2× node scaling would not need fewer nodes: ${hot}.`;
  const cost = option.cost ? `, ${dollars(option.cost.total)}/month` : "";
  return `2× node scaling (needs a new cluster: the factor is chosen at creation, on SSD, not in every zone): ${hot}; ${nodes(option.nodes)} (even)${cost}, where standard nodes need ${nodes(option.nodesAt1x)}.`;
}

function tieredLine(option: TieredStorageOption): string | undefined {
  // No retention (the reason "no retention"): nothing grows old enough to move, and nothing to say.
  if (option.retentionS === null) return undefined;
  const threshold = formatDuration(option.coldAfterS);
  switch (option.reason) {
    case "no retention":
    case "HDD":
      return undefined;
    case "retention within threshold":
      return `Tiered storage (Preview) cannot help: a ${formatDuration(option.retentionS)} retention keeps nothing older than its ${threshold} minimum threshold.`;
    case "cold reads exceed the tier":
      return `Tiered storage (Preview) not offered: the reads of cells older than ${threshold} (${Math.round(option.coldRowsPerS)} rows/s, ${formatBytes(option.coldScanBytesPerS)}/s scanned) exceed the infrequent tier's 100 rows/s and 36 MB/s per node on ${nodes(option.nodes)}.`;
    case "no fewer nodes":
      return `Tiered storage (Preview) would not need fewer nodes than ${nodes(option.ssdOnlyNodes)} on SSD alone: CPU, not storage, sizes the cluster.`;
    case "fits":
      return `Tiered storage (Preview): cells older than ${threshold} move to the infrequent tier (${formatBytes(option.infrequentBytes)}; ${formatBytes(option.ssdBytes)} stay on SSD): ${nodes(option.nodes)} instead of ${option.ssdOnlyNodes}, ${dollars(option.cost!.total)}/month against ${dollars(option.ssdOnlyCost!.total)} on SSD alone; the reads of older cells (${Math.round(option.coldRowsPerS)} rows/s) fit the tier's 100 rows/s per node at low double-digit ms.`;
  }
}

export function clusterOptionLines(options: ClusterOptions): string[] {
  const tiered = tieredLine(options.tieredStorage);
  return [
    autoscalerLine(options.autoscaler),
    ...(options.nodeScaling ? [nodeScalingLine(options.nodeScaling)] : []),
    ...(tiered ? [tiered] : []),
  ];
}

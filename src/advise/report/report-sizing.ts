/**
 * The sizing and cost of the advice in sentences, shared by the lab's verdict and the reports:
 * the nodes the recommendation needs for CPU and for storage today and at the stated growth, what
 * that costs per month, the cheapest design that meets the targets when it is not the simplest,
 * and — when storage sizes the cluster — HDD and keeping fewer days in Bigtable.
 */

import { formatBytes } from "../../format/bytes.js";
import { formatDuration } from "../../sim/scenario/duration.js";
import { type Advice, candidateLabel } from "../judge/advise.js";
import type { EvaluatedCandidate, JudgedCandidate } from "../judge/recommend.js";
import { dollars, type MonthlyCost } from "../size/cost.js";
import { analyticalLines, pricesUsedLine } from "./analytical-report.js";

const costText = (cost: MonthlyCost) =>
  `${dollars(cost.total)}/month (${dollars(cost.nodes)} nodes + ${dollars(cost.storage)} storage)`;

const nodesText = (count: number) => `${count} node${count === 1 ? "" : "s"}`;

/**
 * A design's $/month for a table cell: on the nodes it needs, or for a cyclic load the autoscaled
 * range (a month bills between its ends; the top when the peak is too short for the autoscaler).
 */
export function monthlyCostCell(evaluated: JudgedCandidate): string {
  const range = evaluated.autoscaled;
  if (range)
    return range.followsPeak && range.minCost.total < range.maxCost.total
      ? `${dollars(range.minCost.total)}–${dollars(range.maxCost.total)}`
      : dollars(range.maxCost.total);
  return evaluated.cost ? dollars(evaluated.cost.total) : "–";
}

/** The autoscaler's range over a cyclic load, priced, in one sentence; empty for a steady load. */
export function autoscaledText(evaluated: JudgedCandidate): string {
  const range = evaluated.autoscaled;
  if (!range) return "";
  const at = range.growth === 1 ? "" : ` at ${range.growth}×`;
  const span = `an autoscaler holding ${Math.round(range.cpuTarget * 100)} % CPU runs ${range.minNodes}–${range.maxNodes} nodes over the cycle${at}, ${dollars(range.minCost.total)}–${dollars(range.maxCost.total)}/month at its ends; billed hour by hour (each hour at its most nodes) a month costs about ${dollars(range.billedCost.total)}`;
  return range.followsPeak
    ? ` Autoscaled: ${span}.`
    : ` Autoscaled: ${span}; but its peak lasts ${formatDuration(range.peakLastsS)}, shorter than the ${formatDuration(range.reactionS)} added nodes take to carry load — provision for the peak: ${nodesText(range.maxNodes)}, ${costText(range.maxCost)}.`;
}

/** The nodes one design needs today and at the stated growth, in one sentence. */
export function designSizingText(advice: Advice, evaluated: EvaluatedCandidate): string {
  if (evaluated.kind === "failed") return "";
  const { today, atGrowth } = evaluated.sizing;
  const cpu =
    today.cpu === null
      ? "no node count for CPU (its load sits on a key range)"
      : `${nodesText(today.cpu)} for CPU`;
  const growth =
    advice.growth === 1
      ? ""
      : ` At the stated growth (${advice.growth}×): ${atGrowth.total === null ? "no node count meets the targets" : `${nodesText(atGrowth.total)} (${atGrowth.cpu ?? "–"} for CPU, ${atGrowth.storage} for ${formatBytes(atGrowth.storedBytes)})`}.`;
  // A cost is priced only for a node count (advise.ts): none when no count meets the targets.
  const cost =
    evaluated.cost && atGrowth.total !== null
      ? ` On ${nodesText(atGrowth.total)}: ${costText(evaluated.cost)}.`
      : "";
  return `${candidateLabel(evaluated, advice.nodes)} needs ${cpu} and ${nodesText(today.storage)} for storage (${formatBytes(today.storedBytes)} kept) today.${growth}${cost}${autoscaledText(evaluated)}`;
}

/** The sizing paragraph lines: the recommendation's nodes and cost, the cheapest alternative, and the storage options. */
export function sizingLines(advice: Advice): string[] {
  const chosen = advice.recommended;
  if (!chosen) return [];
  const lines = [
    `Sizing (Google's targets: average CPU ≤ 70 %, hottest node ≤ 90 %, storage ≤ 70 % of a node's limit; Google Cloud, "Monitoring"): ${designSizingText(advice, chosen)}`,
  ];
  const cheapest = advice.cheapest;
  const cheapestNodes = cheapest?.sizing.atGrowth.total ?? null;
  if (cheapest?.cost && chosen.cost && cheapestNodes !== null)
    lines.push(
      `Cheapest that meets the targets: ${candidateLabel(cheapest, advice.nodes)} on ${nodesText(cheapestNodes)}, ${dollars(cheapest.cost.total)}/month — ${dollars(chosen.cost.total - cheapest.cost.total)}/month less than ${chosen.candidate.name}, which is the simpler change.`,
    );
  else if (chosen.cost)
    lines.push(`${chosen.candidate.name} is also the cheapest design that meets the targets.`);
  lines.push(...storageLines(advice), ...analyticalLines(advice), pricesUsedLine(advice.pricesUsed));
  return lines;
}

function storageLines(advice: Advice): string[] {
  const options = advice.storageOptions;
  if (!options) return [];
  const { current, hdd, keepFewerDays } = options;
  const lines = [
    `Storage, not CPU, sizes the cluster: ${nodesText(current.nodes)} of ${current.storage.toUpperCase()} hold the data, ${costText(current.cost)}.`,
  ];
  if (hdd) {
    const cpu = hdd.cpuNodes === null ? "no node count" : nodesText(hdd.cpuNodes);
    lines.push(
      hdd.readsTolerate && hdd.cost
        ? `On HDD (16 TB a node): ${nodesText(hdd.nodes)}, ${costText(hdd.cost)}; the declared reads tolerate HDD (their rows per second need ${cpu}, the data ${nodesText(hdd.storageNodes)}), though each read is slower.`
        : `HDD is not an option: the data would need ${nodesText(hdd.storageNodes)} on HDD, but the declared reads and writes need ${cpu} for CPU at HDD's per-node costs (Google, "Understand performance": 500 point reads/s and 180 MB/s of scans per HDD node, against 17,000 and 220 MB/s on SSD).`,
    );
  }
  if (keepFewerDays)
    lines.push(
      `Keep ${formatDuration(keepFewerDays.keepS)} in Bigtable and export the rest to an analytical store with keyspread export (the fleet incident's answer): ${nodesText(keepFewerDays.nodes)}, ${costText(keepFewerDays.cost)}, against ${nodesText(current.nodes)} and ${dollars(current.cost.total)}/month keeping ${formatDuration(keepFewerDays.retentionS)} (the analytical store's own cost not included).`,
    );
  return lines;
}

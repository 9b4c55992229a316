/**
 * The advisor's report content shared by the Markdown and HTML renderers: the candidate table,
 * the headline, and which designs get a heatmap.
 */

import { formatBytes } from "../format/bytes.js";
import { formatDuration } from "../sim/duration.js";
import { formatMs } from "../sim/report.js";
import type { Advice } from "./advise.js";
import { describeChange } from "./candidates.js";
import type { KeyStructure } from "./key-structure.js";
import { type Evaluated, meets, simplicityOrder } from "./recommend.js";
import { percent } from "./score.js";

export const CANDIDATE_COLUMNS = [
  "candidate",
  "complexity",
  "nodes",
  "hottest node",
  "average node",
  "max/median",
  "warm-up peak",
  "write p99",
  "reads: fan-out, p99",
  "key bytes/row",
  "key storage Δ/day",
  "$/hour",
  "nodes needed",
  "verdict",
] as const;

/** Read under the candidate table, so nobody takes a warm-up p99 for the steady state. */
export const CANDIDATE_LEGEND =
  "Hottest node, average node and max/median are the steady state (second half of the run). Warm-up peak, write p99 and read p99 cover the whole run, a new table's warm-up included (the simulator starts an unsalted table on one node, a salted one pre-split over all nodes). Key storage Δ/day: key bytes written per day against as-is.";

function verdict(advice: Advice, evaluated: Evaluated): string {
  if (evaluated === advice.recommended) return "recommended";
  if (evaluated.error !== undefined) return "cannot serve the workload";
  return meets(evaluated) ? "meets the targets" : "misses";
}

/** One row of cells per candidate, in the order of CANDIDATE_COLUMNS. */
export function candidateRows(advice: Advice): string[][] {
  return advice.candidates.map((evaluated) => {
    const scores = evaluated.scores;
    const name = evaluated.candidate.name;
    if (!scores) {
      const blank = CANDIDATE_COLUMNS.slice(3, -1).map(() => "–");
      return [
        name,
        String(evaluated.candidate.complexity),
        String(evaluated.nodes),
        ...blank,
        verdict(advice, evaluated),
      ];
    }
    return [
      name,
      String(evaluated.candidate.complexity),
      String(scores.nodes),
      percent(scores.hottestCpu),
      percent(scores.averageCpu),
      `${scores.maxOverMedian.toFixed(1)}×`,
      percent(scores.peakHottestCpu),
      formatMs(scores.writeP99Ms),
      scores.reads.map((read) => `${read.name} ×${read.fanout} ${formatMs(read.p99Ms)}`).join("; ") || "–",
      scores.keyBytesPerRow.toFixed(1),
      formatBytes(scores.keyOverheadBytesPerDay),
      `$${scores.costPerHour.toFixed(2)}`,
      scores.nodesNeeded === null ? "more won't help" : String(scores.nodesNeeded),
      verdict(advice, evaluated),
    ];
  });
}

/** What was simulated and what the targets are, in one paragraph. */
export function simulatedAgainst(advice: Advice): string {
  const { targets } = advice;
  return `Simulated ${formatDuration(advice.durationS)} per candidate (${advice.mode} engine) on ${advice.nodes} ${advice.storage} nodes${advice.source ? `; workload from ${advice.source}` : ""}. Targets (Google's guidance): hottest node ≤ ${percent(targets.hottestCpu)} and average ≤ ${percent(targets.averageCpu)} after warm-up (the second half of the run), no writes shed, and a new salted table's hottest node ≤ ${percent(targets.warmUpCpu)} while it warms up.`;
}

/** One sentence: what to do. */
export function headline(advice: Advice): string {
  const chosen = advice.recommended;
  if (!chosen) {
    return `No candidate meets the targets (hottest node ≤ ${percent(advice.targets.hottestCpu)}, average ≤ ${percent(advice.targets.averageCpu)}) on ${advice.nodes} nodes or on the node counts tried; see why each loses below.`;
  }
  const changes = chosen.candidate.changes;
  const what = changes.length === 0 ? "keep the current key" : changes.map(describeChange).join(", then ");
  const nodes = advice.needsMoreNodes
    ? ` on ${chosen.nodes} nodes (nothing meets the targets on ${advice.nodes})`
    : ` on ${chosen.nodes} nodes`;
  return `Recommended: ${chosen.candidate.name} — ${what}${nodes}. Hottest node ${percent(chosen.scores!.hottestCpu)}, average ${percent(chosen.scores!.averageCpu)} after warm-up.`;
}

/** Designs shown as heatmaps: the current key, the recommendation, and the two simplest other designs simulated. */
export function heatmapCandidates(advice: Advice): Evaluated[] {
  const simulated = advice.candidates.filter((each) => each.result !== undefined);
  const asIs = advice.candidates[0]!;
  const chosen = advice.recommended;
  const others = simulated
    .filter((each) => each !== asIs && each !== chosen)
    .sort(simplicityOrder)
    .slice(0, 2);
  return [asIs, ...(chosen && chosen !== asIs ? [chosen] : []), ...others].filter(
    (each) => each.result !== undefined,
  );
}

/** The inferred key components as a table. */
export function structureTable(structure: KeyStructure): { rows: string[][]; header: string[] } {
  return {
    header: ["#", "component", "kind", "distinct in sample", "examples"],
    rows: structure.components.map((component) => [
      String(component.index),
      component.name || "(literal)",
      component.timestamp
        ? `timestamp (${component.timestamp.unit}${component.timestamp.reverse ? ", reversed" : ""}${component.timestamp.shape === "date" ? ", date digits" : ""})`
        : component.kind,
      String(component.distinct),
      component.examples.join(", "),
    ]),
  };
}

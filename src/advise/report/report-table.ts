/**
 * The advisor's report content shared by the Markdown and HTML renderers: the candidate table,
 * the headline, and which designs get a heatmap.
 */

import { formatBytes } from "../../format/bytes.js";
import { formatMs } from "../../sim/results/report.js";
import { formatDuration } from "../../sim/scenario/duration.js";
import type { KeyStructure } from "../infer/key-structure.js";
import { realKeyOf } from "../infer/real-key.js";
import { type Advice, candidateLabel } from "../judge/advise.js";
import { describeKeyChange } from "../judge/candidates.js";
import { headroomText, roughRate } from "../judge/headroom.js";
import {
  type EvaluatedCandidate,
  type JudgedCandidate,
  meetsTargets,
  simplicityOrder,
} from "../judge/recommend.js";
import { percent } from "../judge/score.js";
import { monthlyCostCell } from "./report-sizing.js";

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
  "needs today (CPU, storage)",
  "needs at growth",
  "$/month",
  "at growth",
  "breaks at (writes/s)",
  "verdict",
] as const;

/** Read under the candidate table, so nobody takes a warm-up p99 for the steady state. */
export const CANDIDATE_LEGEND = `Hottest node, average node and max/median are the steady state, after the model's warm-up window (the hottest node is the 95th percentile of the intervals). Warm-up peak, write p99 and read p99 cover the whole run, a new table's warm-up included (the current key is a table already split and balanced; a key change starts as a new table: unsalted on one node, salted pre-split over all nodes). Key storage Δ/day: key bytes written per day against as-is. Needs today: the nodes Google's targets ask for, for CPU (average ≤ 70 %, hottest ≤ 90 %) and for storage (the bytes kept over the retention within 70 % of a node's limit); "more won't help" when the load sits on a key range. Needs at growth: the same at the stated growth (CPU and bytes kept grow with it). $/month: those nodes and the bytes kept, at the scenario's prices. At growth: the steady state with the workload grown, checked for designs that meet the targets, simplest first; breaks at: where the hottest or average node reaches its target (a straight line through the two runs).`;

/** The verdict on one candidate in a few words (the table's last column). */
export function candidateVerdict(advice: Advice, evaluated: EvaluatedCandidate): string {
  if (evaluated === advice.recommended) return "recommended";
  if (evaluated.kind === "failed") return "could not be simulated";
  if (evaluated.failures.some((failure) => failure.target === "read")) return "cannot serve a read";
  if (!meetsTargets(evaluated)) return "misses";
  if (evaluated.headroom && evaluated.headroom.failures.length > 0)
    return `misses at ${evaluated.headroom.growth}×`;
  return "meets the targets";
}

/** Each declared read under a design: fan-out and p99 when simulated, else how it is served. */
function readCells(evaluated: JudgedCandidate): string {
  const simulated = new Map(evaluated.scores.reads.map((read) => [read.name, read]));
  return (
    evaluated.reads
      .map((read) => {
        if (read.status === "cannot-serve") return `${read.name}: not a key range`;
        const run = simulated.get(read.name);
        if (run) return `${read.name} ×${run.fanout} ${formatMs(run.p99Ms)}`;
        return `${read.name} ×${read.fanout ?? "?"} (not simulated)`;
      })
      .join("; ") || "–"
  );
}

function headroomCells(evaluated: JudgedCandidate): [string, string] {
  const headroom = evaluated.headroom;
  if (!headroom || headroom.growth === 1) return ["–", "–"];
  const at2 = `${headroom.failures.length === 0 ? "meets" : "misses"}: hottest ${percent(headroom.scores.hottestCpu)}, average ${percent(headroom.scores.averageCpu)}`;
  return [at2, headroom.breaksAt ? `≈ ${roughRate(headroom.breaksAt.writesPerS)}` : "–"];
}

/** Nodes today (CPU, storage), at the stated growth, and $/month there. */
export function sizingCells(evaluated: EvaluatedCandidate): [string, string, string] {
  if (evaluated.kind === "failed") return ["–", "–", "–"];
  const { today, atGrowth } = evaluated.sizing;
  return [
    today.cpu === null ? `more won't help, ${today.storage}` : `${today.cpu}, ${today.storage}`,
    atGrowth.total === null ? "more won't help" : String(atGrowth.total),
    monthlyCostCell(evaluated),
  ];
}

/** One row of cells per candidate, in the order of CANDIDATE_COLUMNS. */
export function candidateRows(advice: Advice): string[][] {
  return advice.candidates.map((evaluated) => {
    const name = candidateLabel(evaluated, advice.nodes);
    if (evaluated.kind === "failed") {
      const blank = CANDIDATE_COLUMNS.slice(3, -1).map(() => "–");
      return [
        name,
        String(evaluated.candidate.complexity),
        String(evaluated.nodes),
        ...blank,
        candidateVerdict(advice, evaluated),
      ];
    }
    return [
      name,
      String(evaluated.candidate.complexity),
      String(evaluated.scores.nodes),
      percent(evaluated.scores.hottestCpu),
      percent(evaluated.scores.averageCpu),
      `${evaluated.scores.maxOverMedian.toFixed(1)}×`,
      percent(evaluated.scores.peakHottestCpu),
      formatMs(evaluated.scores.writeP99Ms),
      readCells(evaluated),
      evaluated.scores.keyBytesPerRow.toFixed(1),
      formatBytes(evaluated.scores.keyOverheadBytesPerDay),
      ...sizingCells(evaluated),
      ...headroomCells(evaluated),
      candidateVerdict(advice, evaluated),
    ];
  });
}

/** What was simulated and what the targets are, in one paragraph. */
export function simulatedAgainst(advice: Advice): string {
  const { targets } = advice;
  return `Simulated ${formatDuration(advice.durationS)} per candidate (${advice.mode} engine) on ${advice.nodes} ${advice.storage} nodes at ${roughRate(advice.writesPerS)} writes/s${advice.source ? `; workload from ${advice.source}` : ""}. Targets (Google's guidance): hottest node ≤ ${percent(targets.hottestCpu)} and average ≤ ${percent(targets.averageCpu)} after the model's warm-up window, no writes shed, storage within its planned share of a node, a new salted table's hottest node ≤ ${percent(targets.warmUpCpu)} while it warms up, at least as many salt buckets as nodes, every declared read served as key ranges — and all of it still at the stated growth, ${advice.growth}× today${advice.growth === 1 ? " (none stated: Google's targets are the headroom for peaks)" : ""}. ${retentionText(advice)}`;
}

/** How long rows stay as storage is sized, and where that comes from. */
export function retentionText(advice: Advice): string {
  const retention = advice.retention;
  if (!retention) return "No retention and no windowed read: storage is what the run wrote.";
  return retention.source === "scenario"
    ? `Storage keeps ${formatDuration(retention.seconds)} of rows (the scenario's retention).`
    : `Storage keeps ${formatDuration(retention.seconds)} of rows: the scenario sets no retention, and "${retention.read}" reads that far back.`;
}

/** One sentence: what to do. */
export function headline(advice: Advice): string {
  const chosen = advice.recommended;
  if (!chosen) return `No recommendation: ${whyNothing(advice)}`;
  const changes = chosen.candidate.changes;
  const what = changes.length === 0 ? "keep the current key" : changes.map(describeKeyChange).join(", then ");
  const lead = advice.needsMoreNodes
    ? `Nothing meets the targets${atGrowth(advice)} on ${advice.nodes} nodes; ${chosen.candidate.name} needs ${chosen.nodes} nodes — ${what}.`
    : `Recommended: ${chosen.candidate.name} — ${what} on ${chosen.nodes} nodes.`;
  const headroom =
    chosen.headroom && chosen.headroom.growth > 1
      ? ` It ${headroomText(chosen.headroom, advice.writesPerS)}.`
      : "";
  return `${lead} Hottest node ${percent(chosen.scores.hottestCpu)}, average ${percent(chosen.scores.averageCpu)} after warm-up.${headroom}`;
}

/** ` at the stated growth (2×)` when one is stated, else nothing: today's workload. */
const atGrowth = (advice: Advice) => (advice.growth > 1 ? ` at the stated growth (${advice.growth}×)` : "");

/** Why nothing is recommended, from what the candidates miss. */
function whyNothing(advice: Advice): string {
  const candidates = advice.candidates;
  // The current key's reads that no candidate (the current key included) serves as key ranges.
  const unservable = advice.candidates[0]!.reads.flatMap((read) =>
    read.status === "cannot-serve" &&
    candidates.every((each) => each.reads.some((r) => r.name === read.name && r.status === "cannot-serve"))
      ? [read]
      : [],
  );
  if (unservable.length > 0)
    return `no candidate serves ${unservable.map((read) => read.name).join(", ")} as key ranges (${unservable[0]!.reason}); change the read or describe the workload in a scenario file.`;
  const [first] = candidates;
  if (first?.kind === "failed" && candidates.every((each) => each.kind === "failed"))
    return `no candidate could be simulated (${first.error}).`;
  return `nothing meets the targets${atGrowth(advice)} on ${advice.nodes} nodes, and more nodes would not fix the candidates that miss them (their load sits on a key range, or they miss a target more nodes do not help with); see why each loses below.`;
}

/** Designs shown as heatmaps: the current key, the recommendation, and the two simplest other designs simulated. */
export function heatmapCandidates(advice: Advice): JudgedCandidate[] {
  const simulated = advice.candidates.filter((each) => each.kind === "judged");
  const asIs = advice.candidates[0]!;
  const chosen = advice.recommended;
  const others = simulated
    .filter((each) => each !== asIs && each !== chosen)
    .sort(simplicityOrder)
    .slice(0, 2);
  return [asIs, ...(chosen && chosen !== asIs ? [chosen] : []), ...others].filter(
    (each) => each.kind === "judged",
  );
}

/**
 * The inferred key components as a table. A word glued to a field's digits (`txn00001`) shows as
 * the field holds it in the recommended schema (the key format separates segments, so the word
 * cannot stay a literal of its own): the word's row names that field, the field's examples start
 * with the word.
 */
export function structureTable(structure: KeyStructure): { rows: string[][]; header: string[] } {
  const { glued } = realKeyOf(structure);
  return {
    header: ["#", "component", "kind", "what it is", "distinct in sample", "examples"],
    rows: structure.components.map((component, index) => {
      const next = structure.components[index + 1];
      const heldBy = next !== undefined && glued[next.name] !== undefined ? next.name : undefined;
      const word = glued[component.name] ?? "";
      return [
        String(component.index),
        heldBy === undefined ? component.name || "(literal)" : `(literal, in ${heldBy})`,
        component.kind,
        component.label,
        String(component.distinct),
        component.examples.map((example) => `${word}${example}`).join(", "),
      ];
    }),
  };
}

/** Per design checked at the stated growth: whether it still meets the targets, and where it breaks. */
export function headroomLines(advice: Advice): string[] {
  return advice.candidates.flatMap((each) =>
    each.kind === "judged" && each.headroom && each.headroom.growth > 1
      ? [`**${candidateLabel(each, advice.nodes)}** ${headroomText(each.headroom, advice.writesPerS)}.`]
      : [],
  );
}

/** Declared reads a design serves as key ranges that the simulator does not place, with why (once per read and reason). */
export function unsimulatedReads(advice: Advice): string[] {
  const seen = new Set<string>();
  for (const each of advice.candidates)
    for (const read of each.reads)
      if (read.status === "not-simulated")
        seen.add(`${read.name}: ${read.reason} (their fan-out is in the table)`);
  return [...seen];
}

/** Why-the-others-lose lines: one per simulated loser, one for those not simulated. */
export function loserLines(advice: Advice): { name?: string; reason: string }[] {
  const skipped = advice.notSimulated;
  return [
    ...advice.losers,
    ...(skipped.length > 0 && advice.recommended
      ? [
          {
            reason: `Not simulated, because ${advice.recommended.candidate.name} is simpler and meets the targets${atGrowth(advice)}: ${skipped.join(", ")}.`,
          },
        ]
      : []),
  ];
}

/**
 * What `keyspread lab` prints: the designs in a table that fits 120 columns (the advisor's full
 * table with `wide`), the verdict block — the winner and why, what each other design loses on, and
 * what the model's uncertainty could change — and the check through the library. Pure text.
 */
import { candidateLabel } from "../advise/judge/advise.js";
import { capacityBound, type EvaluatedCandidate, meetsTargets } from "../advise/judge/recommend.js";
import { percent } from "../advise/judge/score.js";
import { beyondTheKeyText } from "../advise/report/beyond-the-key-text.js";
import { clusterOptionLines } from "../advise/report/cluster-options-report.js";
import { multiClusterReport } from "../advise/report/multi-cluster-report.js";
import { autoscaledText, monthlyCostCell, sizingLines } from "../advise/report/report-sizing.js";
import {
  CANDIDATE_COLUMNS,
  CANDIDATE_LEGEND,
  candidateRows,
  candidateVerdict,
  headline,
  loserLines,
  simulatedAgainst,
} from "../advise/report/report-table.js";
import { headlineLines } from "../advise/report/verdict-headline.js";
import { alignColumns } from "../format/columns.js";
import { wrapText } from "../format/wrap.js";
import { clientCoresLine } from "../sim/client/client-cores.js";
import { formatMs } from "../sim/results/report.js";
import type { DesignSensitivity, SensitivitySpan } from "../sim/results/sensitivity.js";
import { calibrationLines } from "./calibration-report.js";
import type { LabVerdict } from "./judge.js";
import type { DesignCheck } from "./library-check.js";

/** Default width of everything the lab prints. */
export const LAB_COLUMNS = 120;

export interface LabReportOptions {
  /** The advisor's full candidate table instead of the compact one (wider than 120 columns). */
  wide?: boolean;
  /** Sample rows per design written through the library. */
  rows: number;
  /** The re-keying the verdict asks for, sized (rekey-sizing.ts), printed under the verdict. */
  rekey?: readonly string[];
}

const wrap = (text: string, first = "", rest = first) => wrapText(text, LAB_COLUMNS, first, rest);

/** `80% (62–95%)`: the figure at the model's defaults and the range its ends span. */
function ranged(value: number, span: SensitivitySpan | undefined): string {
  const ends = [span?.optimistic, span?.pessimistic].filter((end): end is number => end != null);
  const low = Math.min(value, ...ends);
  const high = Math.max(value, ...ends);
  return percent(low) === percent(high)
    ? percent(value)
    : `${percent(value)} (${percent(low).slice(0, -1)}–${percent(high).slice(0, -1)})`;
}

/** The widest fan-out and the slowest p99 of the design's declared reads. */
function readsCell(evaluated: EvaluatedCandidate): string {
  if (evaluated.reads.some((read) => read.status === "cannot-serve")) return "not a key range";
  const reads = evaluated.kind === "judged" ? evaluated.scores.reads : [];
  if (reads.length === 0) return "–";
  const fanout = Math.max(...reads.map((read) => read.fanout));
  return `×${fanout}, ${formatMs(Math.max(...reads.map((read) => read.p99Ms)))}`;
}

/**
 * A miss within the model's uncertainty: the design misses only targets more nodes fix, and meets
 * them all at the optimistic end of the range (the model's, or the calibrated one).
 */
export function marginalMiss(evaluated: EvaluatedCandidate, span: DesignSensitivity | undefined): boolean {
  return (
    span !== undefined && capacityBound(evaluated) && evaluated.failures.length > 0 && span.meets.optimistic
  );
}

/** The advisor's verdict on a design, with a miss inside the model's uncertainty called marginal. */
function verdictCell(verdict: LabVerdict, each: EvaluatedCandidate): string {
  const words = candidateVerdict(verdict.advice, each);
  return words === "misses" && marginalMiss(each, verdict.ends.get(each)) ? "misses (marginal)" : words;
}

/** Nodes each design needs for CPU and storage today and at the stated growth, and what that costs per month. */
function sizingTable(verdict: LabVerdict): string[] {
  const { advice } = verdict;
  const rows = advice.candidates.map((each) => {
    if (each.kind === "failed") return [candidateLabel(each, advice.nodes), "–", "–", "–", "–", "–"];
    const { today, atGrowth } = each.sizing;
    return [
      candidateLabel(each, advice.nodes),
      today.cpu === null ? "more won't help" : String(today.cpu),
      String(today.storage),
      atGrowth.total === null ? "–" : String(atGrowth.total),
      atGrowth.total === null ? "–" : atGrowth.bound,
      monthlyCostCell(each),
    ];
  });
  const autoscaled = advice.candidates.flatMap((each) =>
    each.kind === "judged" && each.autoscaled ? [each] : [],
  );
  const header = [
    "design",
    "CPU nodes today",
    "storage nodes today",
    `nodes at ${advice.growth}×`,
    "sized by",
    "$/month",
  ];
  return [
    ...alignColumns([header, ...rows]),
    ...wrap(
      `Nodes each design needs against Google's targets: for CPU (average ≤ 70 %, hottest ≤ 90 %; "more won't help" when its load sits on a key range) and for storage (the bytes kept within 70 % of a node's limit), today and at the stated growth (${advice.growth}×: CPU and the bytes kept grow with it); $/month for those nodes and bytes at the scenario's prices${autoscaled.length > 0 ? ", or for a cyclic load the autoscaled range between its fewest and most nodes" : ""}.`,
    ),
    ...autoscaled.flatMap((each) => wrap(`${candidateLabel(each, advice.nodes)}:${autoscaledText(each)}`)),
  ];
}

function compactTable(verdict: LabVerdict): string[] {
  const { advice, ends } = verdict;
  const rows = advice.candidates.map((each) => {
    const scores = each.kind === "judged" ? each.scores : undefined;
    const span = ends.get(each);
    return [
      candidateLabel(each, advice.nodes),
      String(each.nodes),
      scores ? ranged(scores.hottestCpu, span?.hottestNodeCpu) : "–",
      scores ? ranged(scores.averageCpu, span?.averageNodeCpu) : "–",
      scores ? percent(scores.writeShedShare) : "–",
      scores ? formatMs(scores.writeP99Ms) : "–",
      readsCell(each),
      verdictCell(verdict, each),
    ];
  });
  const header = ["design", "nodes", "hottest", "average", "shed", "write p99", "fan-out, p99", "verdict"];
  const constants =
    verdict.calibration?.fit.status === "fitted"
      ? "the constants fitted to the running cluster; in brackets, the range of the constants that still agree with it"
      : "its constants' defaults; in brackets, the range between their optimistic and pessimistic ends";
  const legend = `Hottest node (95th percentile) and average node CPU in the steady state, after the model's warm-up window, at ${constants}. Shed: writes shed in the steady state. Write p99 and read p99 (the widest fan-out and the slowest p99 of the declared reads) cover the whole run, a new table's warm-up included. The current key is the table that exists; a key change starts as a new table.`;
  return [
    ...alignColumns([header, ...rows]),
    ...wrap(ends.size > 0 ? legend : legend.replace(/; in brackets[^.]*/, "")),
  ];
}

function wideTable(verdict: LabVerdict): string[] {
  const { advice, ends } = verdict;
  const header = [...CANDIDATE_COLUMNS, "hottest, model ends", "average, model ends"];
  const rows = candidateRows(advice).map((cells, index) => {
    const span: DesignSensitivity | undefined = ends.get(advice.candidates[index]!);
    const range = (value: SensitivitySpan | undefined) =>
      value ? `${percent(value.optimistic ?? 0)}–${percent(value.pessimistic ?? 0)}` : "–";
    return [...cells, range(span?.hottestNodeCpu), range(span?.averageNodeCpu)];
  });
  return [...alignColumns([header, ...rows]), ...wrap(CANDIDATE_LEGEND)];
}

/** Designs whose verdict against Google's guidance differs between the model's ends, in words. */
function uncertaintyLines(verdict: LabVerdict): string[] {
  const { advice, ends } = verdict;
  if (ends.size === 0) return [];
  const flipping = [...ends].filter(([, span]) => span.flips !== undefined);
  const where =
    verdict.calibration?.fit.status === "fitted"
      ? "the range calibrated to the running cluster"
      : "the model's constants";
  if (flipping.length === 0)
    return wrap(
      `Model uncertainty: every design meets or misses Google's guidance alike at both ends of ${where} (docs/simulator.md lists the constants with their sources).`,
    );
  return [
    `Model uncertainty, over ${where} (docs/simulator.md lists the constants with their sources):`,
    ...flipping.flatMap(([each, span]) =>
      wrap(`${candidateLabel(each, advice.nodes)} ${span.flips}.`, "  - ", "    "),
    ),
  ];
}

function verdictBlock(verdict: LabVerdict): string[] {
  const { advice } = verdict;
  return [
    ...wrap(headline(advice), "Verdict: ", "  "),
    ...sizingLines(advice).flatMap((line) => wrap(line, "  ", "  ")),
    ...calibrationLines(verdict.calibration).flatMap((line) => wrap(line, "  ", "  ")),
    "Why the others lose:",
    ...loserLines(advice).flatMap((loser) =>
      wrap(loser.name ? `${loser.name}: ${loser.reason}` : loser.reason, "  - ", "    "),
    ),
    ...(advice.beyondTheKey.length > 0
      ? [
          "Beyond the key:",
          ...advice.beyondTheKey.flatMap((note) => wrap(beyondTheKeyText(note), "  - ", "    ")),
        ]
      : []),
    ...(advice.clusterOptions
      ? [
          "Cluster options:",
          ...clusterOptionLines(advice.clusterOptions).flatMap((line) => wrap(line, "  - ", "    ")),
        ]
      : []),
    ...uncertaintyLines(verdict),
  ];
}

function libraryChecks(checks: readonly DesignCheck[], rows: number): string[] {
  const reasons: string[] = [];
  const table = checks.map((check) => {
    const latest = check.latest;
    if ("unavailable" in latest) reasons.push(`${check.design}: ${latest.unavailable}`);
    return [
      check.design,
      String(check.buckets),
      check.rowsWritten.toLocaleString("en"),
      check.bucketSkew.toFixed(2),
      ...("unavailable" in latest
        ? ["not served", "–"]
        : [`latest-${latest.n} × ${latest.entities}, ×${latest.fanout}`, latest.correct ? "yes" : "NO"]),
    ];
  });
  return [
    ...wrap(
      `Through the library on the embedded store: ${rows.toLocaleString("en")} sample rows of distinct entities per design, plus the newest rows of a few entities read back and compared with what was written.`,
    ),
    ...alignColumns([
      ["design", "buckets", "rows written", "bucket max/mean", "latest-N read, fan-out", "correct"],
      ...table,
    ]),
    ...reasons.flatMap((reason) => wrap(reason, "  not served: ", "    ")),
  ];
}

/** The recommendation on the scenario's clusters, after a blank line; nothing without replication. */
function multiClusterBlock(verdict: LabVerdict): string[] {
  const answer = verdict.advice.multiCluster;
  if (!answer) return [];
  return [
    "",
    ...multiClusterReport(answer).flatMap((part) => {
      if (part.kind === "table") return part.lines;
      if (part.kind === "text") return part.lines.flatMap((line) => wrap(line));
      const [heading, ...items] = part.lines;
      return [
        ...(heading === undefined ? [] : wrap(heading)),
        ...items.flatMap((item) => wrap(item, "  - ", "    ")),
      ];
    }),
  ];
}

/** The lab's report for the terminal: every line within 120 columns unless `wide`. */
export function labReport(
  verdict: LabVerdict,
  checks: readonly DesignCheck[],
  options: LabReportOptions,
): string[] {
  const { advice } = verdict;
  return [
    ...wrap(`keyspread lab — ${advice.scenario}${advice.description ? `: ${advice.description}` : ""}`),
    ...headlineLines(advice).flatMap((line) => wrap(line, "", "  ")),
    "",
    ...wrap(simulatedAgainst(advice)),
    "",
    ...(options.wide ? wideTable(verdict) : compactTable(verdict)),
    ...clientCoresLines(advice),
    "",
    ...sizingTable(verdict),
    "",
    ...verdictBlock(verdict),
    ...(options.rekey ?? []).flatMap((line) =>
      wrap(line.trimStart(), line.startsWith("  ") ? "  " : "", "    "),
    ),
    ...multiClusterBlock(verdict),
    "",
    ...libraryChecks(checks, options.rows),
  ];
}

/** The verdict in a few paragraphs, for the top of the lab's heatmap page. */
export function labIntro(verdict: LabVerdict): string[] {
  return [...headlineLines(verdict.advice), headline(verdict.advice), simulatedAgainst(verdict.advice)];
}

/** The client cores of the designs the recommendation weighed: those meeting the targets, the recommendation first. */
function clientCoresLines(advice: LabVerdict["advice"]): string[] {
  const meeting = advice.candidates.filter(meetsTargets);
  const ordered = advice.recommended
    ? [advice.recommended, ...meeting.filter((each) => each !== advice.recommended)]
    : meeting;
  const line = clientCoresLine(
    ordered.map((each) => ({
      name: candidateLabel(each, advice.nodes),
      clientCores: each.scores.clientCores,
    })),
  );
  return line === "" ? [] : wrap(line);
}

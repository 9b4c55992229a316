/** A simulation's comparison as plain-text tables, one row per design. */

import { formatBytes } from "../../format/bytes.js";
import { alignColumns } from "../../format/columns.js";
import { clientCoresLine } from "../client/client-cores.js";
import { formatDuration } from "../scenario/duration.js";
import type { DesignResult, SimulationResult } from "./results.js";
import { type DesignSensitivity, misses, type SensitivitySpan } from "./sensitivity.js";
import { AVERAGE_CPU_LIMIT, HOTTEST_CPU_LIMIT } from "./summary.js";

const percent = (cpu: number) => `${Math.round(cpu * 100)}%`;

/** `3.2 ms`, `41 ms`, `2.1 s`; `–` when there was nothing to measure. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "–";
  if (ms >= 1000) return `${(ms / 1000).toFixed(1)} s`;
  return ms >= 10 ? `${Math.round(ms)} ms` : `${ms.toFixed(1)} ms`;
}

const settled = (seconds: number | null) => (seconds === null ? "never" : formatDuration(seconds));

/**
 * A figure as the range its runs span: `84–97%` across the model's ends, or the one value when
 * they round alike. `null` (never) sorts last.
 */
function ranged(
  value: number | null,
  span: SensitivitySpan | undefined,
  format: (value: number | null) => string,
): string {
  if (span === undefined) return format(value);
  const values = [value, span.optimistic, span.pessimistic];
  const known = values.filter((each): each is number => each !== null);
  const low = known.length > 0 ? format(Math.min(...known)) : format(null);
  const high = known.length < values.length ? format(null) : format(Math.max(...known));
  if (low === high) return low;
  return `${low.replace(/%$/, "")}–${high}`;
}

/**
 * Nodes needed at each end: a number, "more won't help" (the load sits on a key range), or "run
 * longer" (a key range, but the run ended before the model's warm-up did).
 */
function nodesNeeded(design: DesignResult, sensitivity: DesignSensitivity | undefined): string {
  const label = (nodes: number | null, warmedUp: boolean) =>
    nodes !== null ? nodes : warmedUp ? "more won't help" : "run longer";
  const ends = [
    label(design.summary.guidance.nodesNeeded.total, design.summary.steadyState.warmedUp),
    ...(sensitivity
      ? [
          label(sensitivity.nodesNeeded.optimistic, sensitivity.warmedUp.optimistic),
          label(sensitivity.nodesNeeded.pessimistic, sensitivity.warmedUp.pessimistic),
        ]
      : []),
  ];
  const numbers = ends.filter((end): end is number => typeof end === "number");
  const words = [...new Set(ends.filter((end): end is string => typeof end === "string"))];
  const low = numbers.length > 0 ? Math.min(...numbers) : undefined;
  const high = numbers.length > 0 ? Math.max(...numbers) : undefined;
  return [low === high ? low : `${low}–${high}`, ...words].filter((part) => part !== undefined).join("–");
}

function row(design: DesignResult, sensitivity: DesignSensitivity | undefined): string[] {
  const { summary } = design;
  const steady = summary.steadyState;
  const guidance = summary.guidance;
  return [
    design.design,
    String(design.nodes),
    `$${design.costPerHour.toFixed(2)}`,
    `${percent(summary.hottestNodeCpu.first)} → ${ranged(steady.hottestNodeCpu, sensitivity?.hottestNodeCpu, (v) => percent(v ?? 0))}`,
    ranged(steady.averageNodeCpu, sensitivity?.averageNodeCpu, (v) => percent(v ?? 0)),
    ranged(summary.settledAfterS, sensitivity?.settledAfterS, settled),
    ranged(steady.shedWriteShare, sensitivity?.shedWriteShare, (v) => percent(v ?? 0)),
    ranged(steady.writeP99Ms, sensitivity?.writeP99Ms, (v) => formatMs(v ?? Number.NaN)),
    ...summary.reads.map(
      (read, index) => `×${read.fanout} ${formatMs(steady.reads[index]?.p99Ms ?? read.p99Ms)}`,
    ),
    `${formatBytes(guidance.storage.perNode.value)} (${percent(guidance.storage.utilization)})`,
    nodesNeeded(design, sensitivity),
    guidance.meets ? "meets" : `misses: ${misses(design)}`,
  ];
}

/** Each design as a heatmap panel: its load steps, noted with its guidance line. */
export function heatmapPanels(designs: readonly DesignResult[]) {
  return designs.map((design) => ({
    name: design.design,
    steps: design.loadSteps,
    notes: [guidanceLine(design)],
  }));
}

/** A design's steady state against Google's guidance, in one line (for heatmap pages and reports). */
export function guidanceLine(design: DesignResult): string {
  const { steadyState: steady, guidance } = design.summary;
  const needed = guidance.nodesNeeded.total;
  return [
    `steady state: hottest node ${percent(steady.hottestNodeCpu)} (≤ ${percent(HOTTEST_CPU_LIMIT)}), average ${percent(steady.averageNodeCpu)} (≤ ${percent(AVERAGE_CPU_LIMIT)})`,
    `stored ${formatBytes(guidance.storage.perNode.value)} per node (${percent(guidance.storage.utilization)} of its limit)`,
    `nodes needed ${needed ?? (steady.warmedUp ? "— more won't help" : "— run longer")}`,
    guidance.meets ? "meets Google's guidance" : `misses Google's guidance: ${misses(design)}`,
  ].join(" · ");
}

/** Where a design's run sat in its cycle, its CPU at the peak and trough, and what an autoscaler would run. */
function cycleLine(design: DesignResult, cycle: NonNullable<DesignResult["summary"]["cycle"]>): string {
  const { steadyState: peak, guidance } = design.summary;
  const { autoscaler } = cycle;
  const from = formatDuration(cycle.offsetS);
  return [
    `  ${design.design}: ran ${from}–${formatDuration(cycle.offsetS + design.durationS)} after start, judged over ${formatDuration(cycle.judgedS)} of its peaks (the cycle repeats every ${formatDuration(cycle.periodS)});`,
    `average CPU ${percent(cycle.averageNodeCpu.peak)} at the peak, ${percent(cycle.averageNodeCpu.trough)} at the trough;`,
    ...(peak.shedWriteShare > 0
      ? [
          `at the peak ${percent(peak.shedWriteShare)} of writes shed, write p99 ${formatMs(peak.writeP99Ms)};`,
        ]
      : []),
    autoscaler.minNodes === autoscaler.maxNodes
      ? `an autoscaler holding ${percent(autoscaler.cpuTarget)} would run ${autoscaler.maxNodes} node${autoscaler.maxNodes === 1 ? "" : "s"} throughout`
      : `an autoscaler holding ${percent(autoscaler.cpuTarget)} would run ${autoscaler.minNodes}–${autoscaler.maxNodes} nodes ${
          autoscaler.followsPeak
            ? `(added nodes carry load within ${formatDuration(autoscaler.reactionS)}, inside the ${formatDuration(cycle.peakLastsS)} peak)`
            : `but cannot react inside a ${formatDuration(cycle.peakLastsS)} peak (added nodes carry load only after ${formatDuration(autoscaler.reactionS)}): provision for the peak, or raise the minimum before it`
        }`,
    ...(guidance.nodesNeeded.cpu === null
      ? ["— though the peak sits on a key range more nodes would not cool"]
      : []),
  ].join(" ");
}

function activity(design: DesignResult): string[] {
  const { tablets } = design.summary;
  return [
    design.design,
    design.table,
    `${tablets.initial} → ${tablets.final}`,
    String(tablets.loadSplits),
    String(tablets.sizeSplits),
    String(tablets.merges),
    String(tablets.moves),
  ];
}

/**
 * The comparison table (with ranges across the model's ends when `sensitivity` is given), the
 * tablets' activity, a legend, what flips inside the model's ranges, and each design's description.
 */
export function formatDesignComparison(
  result: SimulationResult,
  sensitivity?: readonly DesignSensitivity[],
): string {
  const first = result.designs[0];
  const reads = first?.summary.reads ?? [];
  const retention = first?.summary.guidance.storage.retentionS ?? null;
  const header = [
    "design",
    "nodes",
    "$/hour",
    "hottest start → steady",
    "average",
    "flat after",
    "shed",
    "write p99",
    ...reads.map((read) => `${read.name} fan-out p99`),
    retention === null ? "stored/node (of limit)" : `stored/node at ${formatDuration(retention)}`,
    "nodes needed",
    "Google's guidance",
  ];
  const table = alignColumns([
    header,
    ...result.designs.map((design, index) => row(design, sensitivity?.[index])),
  ]);
  const tablets = alignColumns([
    ["design", "table", "tablets", "load splits", "size splits", "merges", "moves"],
    ...result.designs.map(activity),
  ]);
  const flipped = (sensitivity ?? [])
    .filter((design) => design.flips !== undefined)
    .map((design) => `  ${design.design}: ${design.flips}`);
  const unsettledEnds = (["default", "optimistic", "pessimistic"] as const).filter((end) =>
    end === "default"
      ? result.designs.some((design) => !design.summary.steadyState.warmedUp)
      : (sensitivity ?? []).some((design) => !design.warmedUp[end]),
  );
  const described = result.designs
    .filter((design) => design.description)
    .map((design) => `  ${design.design}: ${design.description}`);
  const warmUp = first?.summary.steadyState;
  const cycles = result.designs.flatMap((design) =>
    design.summary.cycle === null ? [] : [{ design, cycle: design.summary.cycle }],
  );
  return [
    `${result.scenario} — ${formatDuration(result.durationS)} simulated (${first?.mode ?? "fast"} engine${sensitivity ? ", each figure a range over the model's pessimistic and optimistic constants" : ""})`,
    "",
    ...table,
    "",
    ...tablets,
    "",
    clientCoresLine(
      result.designs.map((design) => ({ name: design.design, clientCores: design.clientCores })),
    ),
    cycles.length > 0
      ? `CPU is demand per node (over 100% = saturated, the excess shed). Steady = the cycle's peaks after the model's warm-up (from ${formatDuration(warmUp?.fromS ?? 0)}): hottest =`
      : `CPU is demand per node (over 100% = saturated, the excess shed). Steady = after the model's warm-up (from ${formatDuration(warmUp?.fromS ?? 0)}): hottest =`,
    "95th percentile of the hottest node, average over nodes, p99 latency over the steady state.",
    `Google's guidance: average ≤ ${percent(AVERAGE_CPU_LIMIT)}, hottest ≤ ${percent(HOTTEST_CPU_LIMIT)}, storage within its planned share of a node's limit.`,
    'Nodes needed = max(CPU, storage); "more won\'t help" when the load sits on a key range.',
    "Flat after = when the hottest node came within 1.5× the median for good.",
    ...(unsettledEnds.length > 0
      ? [
          `This run is shorter than twice the model's warm-up at its ${unsettledEnds.join(" and ")} end${unsettledEnds.length > 1 ? "s" : ""}: there, a load still on a key range may yet spread ("run longer").`,
        ]
      : []),
    ...(cycles.length > 0
      ? ["", "Over the workload's cycle:", ...cycles.map(({ design, cycle }) => cycleLine(design, cycle))]
      : []),
    ...(flipped.length > 0 ? ["", "Verdicts that depend on the model's assumptions:", ...flipped] : []),
    ...(described.length > 0 ? ["", ...described] : []),
  ].join("\n");
}

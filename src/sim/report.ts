/** A simulation's comparison as a plain-text table, one row per design. */

import { alignColumns } from "../format/columns.js";
import { formatDuration } from "./duration.js";
import type { DesignResult, SimulationResult } from "./results.js";

const percent = (cpu: number) => `${Math.round(cpu * 100)}%`;

/** `3.2 ms`, `41 ms`, `2.1 s`; `–` when there was nothing to measure. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "–";
  if (ms >= 1000) return `${(ms / 1000).toFixed(1)} s`;
  return ms >= 10 ? `${Math.round(ms)} ms` : `${ms.toFixed(1)} ms`;
}

function row(design: DesignResult): string[] {
  const { summary } = design;
  const cpu = summary.hottestNodeCpu;
  return [
    design.design,
    String(design.nodes),
    `$${design.costPerHour.toFixed(2)}`,
    `${percent(cpu.first)} → ${percent(cpu.last)}`,
    `${summary.maxOverMedian.last.toFixed(1)}×`,
    summary.settledAfterS === null ? "never" : formatDuration(summary.settledAfterS),
    `${formatMs(summary.writes.p50Ms)} / ${formatMs(summary.writes.p99Ms)}`,
    percent(summary.writes.shedShare),
    ...summary.reads.map((read) => `×${read.fanout} ${formatMs(read.p99Ms)}`),
    `${summary.tablets.initial} → ${summary.tablets.final}`,
    `${summary.tablets.loadSplits}/${summary.tablets.sizeSplits}`,
    String(summary.tablets.moves),
  ];
}

/** The comparison table, a legend line, and each design's description. */
export function formatComparison(result: SimulationResult): string {
  const reads = result.designs[0]?.summary.reads ?? [];
  const header = [
    "design",
    "nodes",
    "$/hour",
    "hottest CPU start → end",
    "max/median",
    "flat after",
    "write p50 / p99",
    "shed",
    ...reads.map((read) => `${read.name} fan-out p99`),
    "tablets",
    "splits load/size",
    "moves",
  ];
  const lines = alignColumns([header, ...result.designs.map(row)]);
  const described = result.designs
    .filter((design) => design.description)
    .map((design) => `  ${design.design}: ${design.description}`);
  return [
    `${result.scenario} — ${formatDuration(result.durationS)} simulated (${result.designs[0]?.mode ?? "fast"} engine)`,
    "",
    ...lines,
    "",
    "CPU is demand per node (over 100% = saturated, the excess shed); start/end = first/last sample interval;",
    "max/median at the end; flat after = when the hottest node came within 1.5× the median for good.",
    ...(described.length > 0 ? ["", ...described] : []),
  ].join("\n");
}

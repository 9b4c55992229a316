/**
 * The lab's prediction for the run (the same scaled scenario, design, nodes and duration) beside
 * what the run measured: hottest node and average CPU, write and read p99, shed or throttled
 * writes, achieved rates. CPU is measured only where the cluster reports it (Cloud Monitoring or
 * the admin API's hot tablets); the emulator has neither, so those rows say "not measured". Pure.
 */

import type { DesignResult, SteadyState } from "../sim/results/results.js";
import { simulateScenario } from "../sim/results/simulate.js";
import { percentile } from "./latency-histogram.js";
import type { Measurement } from "./measurement.js";
import type { ScaledScenario } from "./scaled-scenario.js";

export interface SideBySideRow {
  metric: string;
  predicted: number | null;
  measured: number | null;
  unit: "share" | "ms" | "per-s";
}

/** The lab's run of the design (its steady state is what a load test that ran long enough should measure). */
export function predict(scaled: ScaledScenario, durationS: number): DesignResult {
  return simulateScenario(scaled.scenario, { design: scaled.design.name, durationS }).designs[0]!;
}

/** CPU the cluster reported over the run, when it did (shares of one node, 0.95 = 95 %). */
export interface ClusterCpu {
  hottest?: number;
  average?: number;
}

/** Writes the cluster refused for load: throttled (RESOURCE_EXHAUSTED) or shed (UNAVAILABLE, DEADLINE_EXCEEDED). */
const SHED_CODES = ["RESOURCE_EXHAUSTED", "UNAVAILABLE", "DEADLINE_EXCEEDED"];

export function sideBySide(
  predicted: SteadyState,
  measured: Measurement,
  seconds: number,
  cpu: ClusterCpu = {},
): SideBySideRow[] {
  const shed = SHED_CODES.reduce((sum, code) => sum + (measured.errors[code] ?? 0), 0);
  const attempted = measured.writes + shed;
  const rate = (n: number) => (seconds > 0 ? n / seconds : null);
  return [
    {
      metric: "hottest node CPU",
      predicted: predicted.hottestNodeCpu,
      measured: cpu.hottest ?? null,
      unit: "share",
    },
    {
      metric: "average node CPU",
      predicted: predicted.averageNodeCpu,
      measured: cpu.average ?? null,
      unit: "share",
    },
    {
      metric: "writes/s served",
      predicted: predicted.servedWritesPerS,
      measured: rate(measured.writes),
      unit: "per-s",
    },
    {
      metric: "write p99",
      predicted: predicted.writeP99Ms,
      measured: percentile(measured.latency.write ?? {}, 99),
      unit: "ms",
    },
    ...predicted.reads.map(
      (read): SideBySideRow => ({
        metric: `read p99 ${read.name}`,
        predicted: read.p99Ms,
        measured: percentile(measured.latency[read.name] ?? {}, 99),
        unit: "ms",
      }),
    ),
    {
      metric: "shed or throttled writes",
      predicted: predicted.shedWriteShare,
      measured: attempted === 0 ? null : shed / attempted,
      unit: "share",
    },
  ];
}

export function formatSideBySide(rows: readonly SideBySideRow[]): string {
  const show = (value: number | null, unit: SideBySideRow["unit"]) =>
    value === null
      ? "not measured"
      : unit === "share"
        ? `${(value * 100).toFixed(1)} %`
        : unit === "ms"
          ? `${value.toFixed(1)} ms`
          : `${Math.round(value).toLocaleString("en-US")}/s`;
  const width = Math.max(...rows.map((row) => row.metric.length));
  const lines = rows.map(
    (row) =>
      `  ${row.metric.padEnd(width)}  lab ${show(row.predicted, row.unit).padEnd(12)}  measured ${show(row.measured, row.unit)}`,
  );
  return `${lines.join("\n")}\n`;
}

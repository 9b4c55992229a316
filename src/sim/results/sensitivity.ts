/**
 * Uncertainty instead of false precision: every design is run with the model's constants at their
 * defaults, then all at their pessimistic ends, then all at their optimistic ends
 * (model-constants.ts), and each headline figure is reported as the range the ends span. A verdict
 * against Google's guidance that differs between the ends is said in words.
 */

import { formatBytes } from "../../format/bytes.js";
import { MODEL_ENDS, type ModelEnd } from "../cluster/model-constants.js";
import type { Scenario } from "../scenario/scenario.js";
import type { LargestRow } from "../workload/row-size.js";
import type { DesignResult, SimulationResult } from "./results.js";
import { type SimulateOptions, type SimulationProgress, simulateScenario } from "./simulate.js";

/** The optimistic and pessimistic values of one figure (null: never, e.g. a design that never settles). */
export interface SensitivitySpan {
  optimistic: number | null;
  pessimistic: number | null;
}

export interface DesignSensitivity {
  design: string;
  settledAfterS: SensitivitySpan;
  hottestNodeCpu: SensitivitySpan;
  averageNodeCpu: SensitivitySpan;
  shedWriteShare: SensitivitySpan;
  writeP99Ms: SensitivitySpan;
  nodesNeeded: SensitivitySpan;
  /** Whether the design meets Google's guidance at each end. */
  meets: Record<ModelEnd, boolean>;
  /** Whether the run lasted twice the model's warm-up window at each end (else its steady state still holds warm-up). */
  warmedUp: Record<ModelEnd, boolean>;
  /** One sentence when the ends disagree on the guidance; undefined when they agree. */
  flips?: string;
}

export interface SensitivityResult {
  /** The run at the constants' defaults. */
  result: SimulationResult;
  designs: DesignSensitivity[];
}

export function simulateSensitivity(
  scenario: Scenario,
  options: Omit<SimulateOptions, "modelEnd"> = {},
): SensitivityResult {
  const [result, pessimistic, optimistic] = MODEL_ENDS.map((end, pass) =>
    simulateScenario(scenario, {
      ...options,
      modelEnd: end,
      onProgress: (progress: SimulationProgress) =>
        options.onProgress?.({
          ...progress,
          designIndex: pass * progress.designCount + progress.designIndex,
          designCount: MODEL_ENDS.length * progress.designCount,
        }),
    }),
  ) as [SimulationResult, SimulationResult, SimulationResult];
  return {
    result,
    designs: result.designs.map((design, index) =>
      compareEnds(design, pessimistic.designs[index]!, optimistic.designs[index]!),
    ),
  };
}

/** One design's figures at the model's ends, and whether its verdict against Google's guidance flips between them. */
export function compareEnds(
  base: DesignResult,
  pessimistic: DesignResult,
  optimistic: DesignResult,
): DesignSensitivity {
  const span = (pick: (design: DesignResult) => number | null): SensitivitySpan => ({
    optimistic: pick(optimistic),
    pessimistic: pick(pessimistic),
  });
  const meets = {
    default: base.summary.guidance.meets,
    pessimistic: pessimistic.summary.guidance.meets,
    optimistic: optimistic.summary.guidance.meets,
  };
  return {
    design: base.design,
    settledAfterS: span((design) => design.summary.settledAfterS),
    hottestNodeCpu: span((design) => design.summary.steadyState.hottestNodeCpu),
    averageNodeCpu: span((design) => design.summary.steadyState.averageNodeCpu),
    shedWriteShare: span((design) => design.summary.steadyState.shedWriteShare),
    writeP99Ms: span((design) => design.summary.steadyState.writeP99Ms),
    nodesNeeded: span((design) => design.summary.guidance.nodesNeeded.total),
    meets,
    warmedUp: {
      default: base.summary.steadyState.warmedUp,
      pessimistic: pessimistic.summary.steadyState.warmedUp,
      optimistic: optimistic.summary.steadyState.warmedUp,
    },
    ...flips(meets, { default: base, pessimistic, optimistic }),
  };
}

function flips(meets: Record<ModelEnd, boolean>, runs: Record<ModelEnd, DesignResult>): { flips?: string } {
  const passing = MODEL_ENDS.filter((end) => meets[end]);
  if (passing.length === 0 || passing.length === MODEL_ENDS.length) return {};
  const failing = MODEL_ENDS.filter((end) => !meets[end]);
  const why = failing.map((end) => `${end}: ${misses(runs[end]!)}`).join("; ");
  return {
    flips: `meets Google's guidance at the ${list(passing)} end${passing.length > 1 ? "s" : ""} of the model's constants but not at the ${list(failing)} end${failing.length > 1 ? "s" : ""} (${why})`,
  };
}

const list = (ends: readonly string[]) => ends.join(" and ");
const percent = (share: number) => `${Math.round(share * 100)}%`;

/** What a run misses of the guidance, in words. */
export function misses(design: DesignResult): string {
  const { averageCpu, hottestCpu, storage, largestRow } = design.summary.guidance;
  return [
    averageCpu.ok ? "" : `average CPU ${percent(averageCpu.value)} > ${percent(averageCpu.limit)}`,
    hottestCpu.ok ? "" : `hottest node ${percent(hottestCpu.value)} > ${percent(hottestCpu.limit)}`,
    storage.perNode.ok ? "" : `storage ${percent(storage.utilization)} of a node's limit`,
    largestRow === null || largestRow.ok ? "" : rowMiss(largestRow),
  ]
    .filter(Boolean)
    .join(", ");
}

/** One row over Google's recommended size (or Bigtable's hard limit), in words. */
export function rowMiss(row: LargestRow): string {
  const over =
    row.bytes > row.hardLimit
      ? `Bigtable's ${formatBytes(row.hardLimit)} row limit`
      : `Google's ${formatBytes(row.limit)} per row`;
  return `one row of ${row.group} holds ${formatBytes(row.bytes)} > ${over}`;
}

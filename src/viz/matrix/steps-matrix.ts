/** Heatmap matrix from a simulation's per-step load (`LoadStep[]`). Pure. */

import type { KeyRangeLoad, LoadStep } from "../../load/key-load.js";
import { VizArgumentError } from "../input/viz-argument-error.js";
import { DEFAULT_MAX_COLUMNS, type HeatMatrix, type HeatMatrixOptions } from "./heat-matrix.js";
import { planKeyAxis } from "./key-axis.js";
import { LoadGrid } from "./load-grid.js";
import { columnOf, type TimeAxis } from "./time-axis.js";

/** Columns are whole multiples of the step duration, so each step lands in exactly one column. */
function stepTimeAxis(steps: readonly LoadStep[], maxColumns: number): TimeAxis {
  const startS = steps.reduce((first, step) => Math.min(first, step.t), Number.POSITIVE_INFINITY);
  const endS = steps.reduce(
    (last, step) => Math.max(last, step.t + step.durationS),
    Number.NEGATIVE_INFINITY,
  );
  const stepS = steps[0]!.durationS;
  const stepsPerColumn = Math.max(1, Math.ceil((endS - startS) / stepS / maxColumns));
  const columnS = stepS * stepsPerColumn;
  return { startS, columnS, columns: Math.max(1, Math.ceil((endS - startS) / columnS - 1e-9)), epoch: false };
}

function validateStep(step: LoadStep, index: number): void {
  if (!Number.isFinite(step.t) || !(step.durationS > 0)) {
    throw new Error(
      `steps[${index}]: t must be finite and durationS > 0 (got t=${step.t}, durationS=${step.durationS})`,
    );
  }
}

export function matrixFromSteps(steps: readonly LoadStep[], options: HeatMatrixOptions = {}): HeatMatrix {
  if (steps.length === 0)
    throw new VizArgumentError(
      "steps",
      steps.length,
      "at least one load step",
      "steps: expected at least one load step",
    );
  steps.forEach(validateStep);
  const keys: Buffer[] = [];
  for (const step of steps) {
    for (const range of step.ranges) {
      keys.push(range.start);
      if (range.end !== null) keys.push(range.end);
    }
  }
  keys.sort(Buffer.compare);
  const plan = planKeyAxis(keys, options);
  const grid = new LoadGrid(plan.boundaries, stepTimeAxis(steps, options.maxColumns ?? DEFAULT_MAX_COLUMNS));
  for (const step of steps) {
    const column = columnOf(grid.time, step.t + step.durationS / 2);
    for (const range of step.ranges) {
      const first = grid.binOf(range.start);
      grid.addRates(first, grid.lastBinBefore(range.end, first), column, step.durationS, rangeRates(range));
    }
  }
  return grid.toMatrix(plan);
}

/** Reads count rows read, by point reads and by scans alike (as Key Visualizer's read metrics do). */
function rangeRates(range: KeyRangeLoad) {
  return {
    readsPerS: range.readsPerS + range.scannedRowsPerS,
    writesPerS: range.writesPerS,
    bytesPerS: range.bytesPerS,
    ...(range.nodeCpu === undefined ? {} : { nodeCpu: range.nodeCpu }),
    ...(range.storedBytes === undefined ? {} : { storedBytes: range.storedBytes }),
  };
}

/**
 * A simulation run's heatmap matrix, built once per run: with the studio's memo an unchanged
 * design's run (its load steps) is the same object from change to change, and heatmaps.html and
 * report.html show the same runs, so neither builds its matrix again.
 */
import type { KeySchema } from "../../keys/types.js";
import type { LoadStep } from "../../load/key-load.js";
import type { HeatMatrix } from "./heat-matrix.js";
import { matrixFromSteps } from "./steps-matrix.js";

/** By the steps, with the naming's fingerprint (the spec's meaning: what rows are named by). */
const remembered = new WeakMap<readonly LoadStep[], { naming: string; matrix: HeatMatrix }>();

/** `matrixFromSteps(steps, { naming })`, remembered for as long as `steps` lives (steps are not changed once run). */
export function rememberedStepsMatrix(steps: readonly LoadStep[], naming: KeySchema): HeatMatrix {
  const known = remembered.get(steps);
  if (known?.naming === naming.fingerprint) return known.matrix;
  const matrix = matrixFromSteps(steps, { naming });
  remembered.set(steps, { naming: naming.fingerprint, matrix });
  return matrix;
}

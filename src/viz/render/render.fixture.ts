/** A small simulated run for rendering tests: 8 ranges over 2 salt buckets, range 5 hot on a saturated node from t=10. */

import type { HeatMatrix } from "../matrix/heat-matrix.js";
import type { LoadStep } from "../matrix/key-load.js";
import { matrixFromSteps } from "../matrix/steps-matrix.js";

export const HOT_ROW = 5;

export function fixtureMatrix(): HeatMatrix {
  const starts = ["", "00#dev1", "00#dev2", "00#dev3", "01#", "01#dev5", "01#dev6", "01#dev7"];
  const steps: LoadStep[] = Array.from({ length: 20 }, (_, t) => ({
    t,
    durationS: 1,
    ranges: starts.map((start, index) => ({
      start: Buffer.from(start),
      end: index + 1 < starts.length ? Buffer.from(starts[index + 1]!) : null,
      readsPerS: 100,
      writesPerS: index === HOT_ROW && t >= 10 ? 50_000 : 500,
      scannedRowsPerS: 0,
      bytesPerS: 1e6,
      nodeCpu: index === HOT_ROW && t >= 10 ? 0.97 : 0.3,
    })),
  }));
  return matrixFromSteps(steps);
}

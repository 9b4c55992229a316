import { describe, expect, it } from "vitest";
import { compileSchema } from "../../keys/schema.js";
import type { SchemaSpec } from "../../keys/types.js";
import type { LoadStep } from "../../load/key-load.js";
import { rememberedStepsMatrix } from "./remembered-steps-matrix.js";
import { matrixFromSteps } from "./steps-matrix.js";

const spec = (separator: string): SchemaSpec => ({
  version: 1,
  name: "orders",
  layout: "text",
  separator,
  segments: [
    { field: "customer", codec: { type: "string" } },
    { field: "order", codec: { type: "uint", width: 8 } },
  ],
});

const steps = (): LoadStep[] =>
  [0, 1].map((t) => ({
    t,
    durationS: 1,
    ranges: [
      {
        start: Buffer.from("acme#"),
        end: Buffer.from("beta#"),
        readsPerS: 1,
        writesPerS: 10 * (t + 1),
        scannedRowsPerS: 0,
        bytesPerS: 100,
      },
      {
        start: Buffer.from("beta#"),
        end: null,
        readsPerS: 0,
        writesPerS: 5,
        scannedRowsPerS: 0,
        bytesPerS: 50,
      },
    ],
  }));

describe("a run's remembered heatmap matrix", () => {
  it("is the matrix matrixFromSteps builds, built once per run", () => {
    const run = steps();
    const naming = compileSchema(spec("#"));
    const matrix = rememberedStepsMatrix(run, naming);
    expect(matrix).toEqual(matrixFromSteps(run, { naming }));
    // The same run named by the same schema, compiled again (as each studio change does).
    expect(rememberedStepsMatrix(run, compileSchema(spec("#")))).toBe(matrix);
    // Another run with equal steps is another object: its matrix is built.
    expect(rememberedStepsMatrix(steps(), naming)).not.toBe(matrix);
  });

  it("is built again when the run is named by a schema of another meaning", () => {
    const run = steps();
    const hash = rememberedStepsMatrix(run, compileSchema(spec("#")));
    const naming = compileSchema(spec("/"));
    const slash = rememberedStepsMatrix(run, naming);
    expect(slash).not.toBe(hash);
    expect(slash).toEqual(matrixFromSteps(run, { naming }));
  });
});

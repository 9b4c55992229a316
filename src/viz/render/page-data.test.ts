import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { displayKey } from "../../keys/key-text.js";
import { compileSchema } from "../../keys/schema.js";
import { syntheticAccess } from "../input/synthetic-access.js";
import { availableHeatMetrics, type HeatMatrix, hotCpuCells } from "../matrix/heat-matrix.js";
import { matrixFromRecords } from "../matrix/records-matrix.js";
import { matrixFromSteps } from "../matrix/steps-matrix.js";
import { detectPatterns } from "../patterns/detect-patterns.js";
import { findingRule, findingSummary } from "../patterns/finding-text.js";
import { type HeatmapDesign, pageDataJson } from "./page-data.js";
import { fixtureMatrix, fixtureRun } from "./render.fixture.js";

/** The page's design data as plain objects: what designJson must write, as JSON.stringify writes it. */
function plainDesignData(design: HeatmapDesign) {
  const { matrix } = design;
  return {
    name: design.name,
    time: matrix.time,
    labelSeparator: matrix.labelSeparator,
    rows: matrix.rows.map((row) => ({
      start: displayKey(row.start),
      end: row.end === null ? null : displayKey(row.end),
      labels: row.labels,
      ...(row.name === undefined ? {} : { name: row.name }),
      keyShare: Number(row.keyShare.toPrecision(4)),
    })),
    values: Object.fromEntries(
      availableHeatMetrics(matrix).map((metric) => [
        metric,
        Array.from(matrix.values[metric]!, (value) => (value === 0 ? 0 : Number(value.toPrecision(4)))),
      ]),
    ),
    hot: matrix.values.cpu ? hotCpuCells(matrix).join("") : null,
    notes: design.notes ?? [],
    patterns: (design.patterns ?? detectPatterns(matrix)).map((finding) => ({
      kind: finding.kind,
      summary: findingSummary(finding),
      rule: findingRule(finding),
    })),
  };
}

const decoder = new TextDecoder();
const SETTINGS = { metric: "ops", height: 560, units: { ops: "ops/s" } };

/** The page's data for these designs, as JSON.stringify writes the plain objects. */
const expectPlain = (...designs: HeatmapDesign[]) =>
  expect(decoder.decode(pageDataJson(SETTINGS, designs))).toBe(
    JSON.stringify({ ...SETTINGS, designs: designs.map(plainDesignData) }),
  );

/** One row of cells for one metric, as a hand-made matrix. */
const rowMatrix = (values: Float64Array, metric: "ops" | "cpu"): HeatMatrix => ({
  time: { startS: 0, columnS: 1, columns: values.length, epoch: false },
  rows: [{ start: Buffer.from("a"), end: null, labels: ["a"], keyShare: 1 }],
  values: { [metric]: values },
  barrierLevel: -1,
  labelSeparator: "#",
});

describe("the heatmap page's data", () => {
  it("is the plain objects' JSON: a simulated run, a log with latency, rows named through a schema", () => {
    const deviceKey = compileSchema({
      version: 1,
      name: "salted",
      layout: "text",
      salt: { buckets: 2, fields: ["deviceID"] },
      segments: [
        { field: "deviceID", codec: { type: "string" } },
        { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
      ],
    });
    const [incident] = fixtureRun();
    const designs: HeatmapDesign[] = [
      {
        name: "simulated",
        matrix: fixtureMatrix(),
        notes: ["misses Google's guidance: hottest node 97% > 90%"],
      },
      {
        name: "from log",
        matrix: matrixFromRecords([...syntheticAccess("sudden", { records: 5_000 })], { maxRows: 60 }),
      },
      { name: "named", matrix: matrixFromSteps(incident!.steps, { naming: deviceKey }) },
    ];
    expect(designs[1]!.matrix.values.latency).toBeDefined();
    expect(designs[2]!.matrix.rows.some((row) => row.name !== undefined)).toBe(true);
    expectPlain(...designs);
    for (const design of designs) expectPlain(design);
  });

  it("writes a matrix's part once, whatever name, notes and patterns each design shows it with", () => {
    const matrix = fixtureMatrix();
    const found = detectPatterns(matrix);
    const shown = [
      {
        name: "as-is on 24 nodes · hottest ≥ 90 %",
        matrix,
        notes: ["recommended", "meets Google's guidance"],
      },
      { name: "no patterns", matrix, patterns: [] },
      { name: "one pattern", matrix, patterns: found.slice(0, 1) },
      { name: "as-is", matrix },
    ];
    expectPlain(...shown);
    expectPlain(...shown.reverse());
  });

  it("is the plain objects' JSON with no settings and with no designs", () => {
    const design = { name: "as-is", matrix: fixtureMatrix() };
    expect(decoder.decode(pageDataJson({}, [design]))).toBe(
      JSON.stringify({ designs: [plainDesignData(design)] }),
    );
    expect(decoder.decode(pageDataJson(SETTINGS, []))).toBe(JSON.stringify({ ...SETTINGS, designs: [] }));
  });

  it("rounds every cell to four significant digits, as Number(toPrecision(4)) and JSON do", () => {
    const cell = fc.oneof(
      fc.constantFrom(0, -0, 1, 0.5, 1234.5, 1e21, 1e-7, 0.000001, Number.NaN, Number.POSITIVE_INFINITY),
      fc.double(),
    );
    fc.assert(
      fc.property(
        fc.array(cell, { minLength: 1, maxLength: 50 }),
        fc.constantFrom("ops" as const, "cpu" as const),
        (cells, metric) => {
          expectPlain({ name: "cells", matrix: rowMatrix(Float64Array.from(cells), metric), patterns: [] });
        },
      ),
    );
  });
});

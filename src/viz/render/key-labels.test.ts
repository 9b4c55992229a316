/**
 * The key axis reads as the keys do: labels joined by the keys' own separator on the PNG/SVG
 * layout and on the HTML page, more than one of them, and decoded through the schema (never hex
 * for a text key) when a design's schema names the rows.
 */
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../keys/schema.js";
import type { SchemaSpec } from "../../keys/types.js";
import type { KeyRangeLoad, LoadStep } from "../../load/key-load.js";
import { matrixFromSteps } from "../matrix/steps-matrix.js";
import { renderHeatmapHtml } from "./html.js";
import { prepareHeatmap } from "./layout.js";
import { heatmapPageData } from "./render.fixture.js";

const ORDERS: SchemaSpec = {
  version: 1,
  name: "orders",
  layout: "text",
  separator: "#",
  segments: [{ literal: "order" }, { field: "orderId", codec: { type: "uint", width: 12 } }],
};
const SALTED: SchemaSpec = { ...ORDERS, name: "salted", salt: { buckets: 128, fields: ["orderId"] } };

/** Ten steps over `keys` (sorted), one range per key, the last one hot. */
function steps(keys: Buffer[]): LoadStep[] {
  return Array.from({ length: 10 }, (_, t) => ({
    t: t * 60,
    durationS: 60,
    ranges: keys.map(
      (start, index): KeyRangeLoad => ({
        start,
        end: keys[index + 1] ?? null,
        readsPerS: 0,
        writesPerS: index === keys.length - 1 ? 30000 : 100,
        scannedRowsPerS: 0,
        bytesPerS: 0,
        nodeCpu: 0.5,
      }),
    ),
  }));
}

const orderKeys = (schema: SchemaSpec) => {
  const compiled = compileSchema(schema);
  return Array.from({ length: 40 }, (_, i) => compiled.encode({ orderId: 1_000_000 + i * 25_000 })).sort(
    Buffer.compare,
  );
};

describe("key axis labels", () => {
  it("join a text key's segments with its own separator, with several labels on the PNG's axis", () => {
    const matrix = matrixFromSteps(steps(orderKeys(ORDERS)));
    expect(matrix.labelSeparator).toBe("#");
    const { layout } = prepareHeatmap(matrix, { width: 1000, height: 600 });
    const labels = layout.keyTicks.map((tick) => tick.label);
    expect(labels.length).toBeGreaterThan(1);
    for (const label of labels) {
      expect(label).toMatch(/^order#\d+/);
      expect(label).not.toContain("/");
    }
  });

  it("name a salted text key's rows through its schema on the page: decoded, never hex", () => {
    const schema = compileSchema(SALTED);
    const matrix = matrixFromSteps(steps(orderKeys(SALTED)), { naming: schema });
    const page = heatmapPageData(renderHeatmapHtml([{ name: "salt-128", matrix }]));
    const design = page.designs[0]!;
    expect(design.labelSeparator).toBe("#");
    const names = design.rows.map((row) => row.name ?? "");
    expect(names.every((name) => name.length > 0)).toBe(true);
    for (const name of names) expect(name).not.toMatch(/hex:/);
    expect(names.some((name) => /^b\d{3}/.test(name))).toBe(true);
    const { layout } = prepareHeatmap(matrix, { width: 1000, height: 600 });
    expect(layout.keyTicks.length).toBeGreaterThan(1);
    for (const tick of layout.keyTicks) expect(tick.label).not.toMatch(/hex:|\//);
  });
});

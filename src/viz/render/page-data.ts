/**
 * The HTML heatmap page's data as UTF-8 JSON: the page's settings, then each design. What comes
 * from a design's matrix alone (its axes, rows, compacted values, hot cells, and its patterns when
 * none are given) is written and encoded once per matrix and remembered: the studio shows an
 * unchanged design's matrix again at every change, and its report.html shows the matrices
 * heatmaps.html shows, so only a changed design is written again, and the page's data is put
 * together from bytes, without making and encoding one string of all the designs.
 */
import { displayKey } from "../../keys/key-text.js";
import { availableHeatMetrics, type HeatMatrix, hotCpuCells } from "../matrix/heat-matrix.js";
import { detectPatterns } from "../patterns/detect-patterns.js";
import type { PatternFinding } from "../patterns/finding.js";
import { findingRule, findingSummary } from "../patterns/finding-text.js";

export interface HeatmapDesign {
  name: string;
  matrix: HeatMatrix;
  /** Default: `detectPatterns(matrix)`. */
  patterns?: PatternFinding[];
  /** Lines shown under the design's name (e.g. the simulator's verdict against Google's guidance). */
  notes?: readonly string[];
}

interface MatrixJson {
  /** The members `time`, `labelSeparator`, `rows`, `values` and `hot`, without braces. */
  members: Uint8Array;
  /** `detectPatterns(matrix)` as the page lists them, once asked for. */
  patterns?: string;
}

const encoder = new TextEncoder();
const COMMA = encoder.encode(",");

/** By the matrix: a matrix is not changed once built. */
const remembered = new WeakMap<HeatMatrix, MatrixJson>();

function matrixJson(matrix: HeatMatrix): MatrixJson {
  const known = remembered.get(matrix);
  if (known) return known;
  const rows = matrix.rows.map((row) => ({
    start: displayKey(row.start),
    end: row.end === null ? null : displayKey(row.end),
    labels: row.labels,
    ...(row.name === undefined ? {} : { name: row.name }),
    keyShare: Number(row.keyShare.toPrecision(4)),
  }));
  const values = availableHeatMetrics(matrix).map(
    (metric) => `${JSON.stringify(metric)}:${compactJson(matrix.values[metric]!)}`,
  );
  const members = [
    `"time":${JSON.stringify(matrix.time)}`,
    `"labelSeparator":${JSON.stringify(matrix.labelSeparator)}`,
    `"rows":${JSON.stringify(rows)}`,
    `"values":{${values.join(",")}}`,
    // Cells on nodes at ≥ 90 % CPU, for the lanes and the tooltip (simulations only).
    `"hot":${matrix.values.cpu ? JSON.stringify(hotCpuCells(matrix).join("")) : "null"}`,
  ].join(",");
  const written: MatrixJson = { members: encoder.encode(members) };
  remembered.set(matrix, written);
  return written;
}

/**
 * The values to four significant digits, which are plenty for colour and tooltip and keep the page
 * small, as a JSON array. A heatmap's values repeat a few levels over thousands of cells, so each
 * level is rounded and written once.
 */
function compactJson(values: Float64Array): string {
  const written = new Map<number, string>();
  const texts = new Array<string>(values.length);
  for (let index = 0; index < values.length; index++) {
    const value = values[index]!;
    let text = written.get(value);
    if (text === undefined) {
      text = JSON.stringify(value === 0 ? 0 : Number(value.toPrecision(4)));
      written.set(value, text);
    }
    texts[index] = text;
  }
  return `[${texts.join(",")}]`;
}

function patternsJson(findings: readonly PatternFinding[]): string {
  return JSON.stringify(
    findings.map((finding) => ({
      kind: finding.kind,
      summary: findingSummary(finding),
      rule: findingRule(finding),
    })),
  );
}

/** The design as the page's script reads it: name, time, labelSeparator, rows, values, hot, notes, patterns. */
function designJson(design: HeatmapDesign): Uint8Array[] {
  const matrix = matrixJson(design.matrix);
  let patterns: string;
  if (design.patterns) patterns = patternsJson(design.patterns);
  else {
    matrix.patterns ??= patternsJson(detectPatterns(design.matrix));
    patterns = matrix.patterns;
  }
  return [
    encoder.encode(`{"name":${JSON.stringify(design.name)},`),
    matrix.members,
    encoder.encode(`,"notes":${JSON.stringify(design.notes ?? [])},"patterns":${patterns}}`),
  ];
}

/** `JSON.stringify({ ...settings, designs })` as UTF-8, with each design as the page's script reads it. */
export function pageDataJson(settings: object, designs: readonly HeatmapDesign[]): Uint8Array {
  const head = JSON.stringify(settings);
  const parts = [
    encoder.encode(`${head.slice(0, -1)}${head === "{}" ? "" : ","}"designs":[`),
    ...designs.flatMap((design, index) => [...(index === 0 ? [] : [COMMA]), ...designJson(design)]),
    encoder.encode("]}"),
  ];
  const json = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let at = 0;
  for (const part of parts) {
    json.set(part, at);
    at += part.length;
  }
  return json;
}

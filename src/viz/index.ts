/** Public API of the heatmap lab: matrices from simulations and access logs, rendering, patterns. */
export { type AccessLogFormat, type AccessLogOptions, readAccessLog } from "./access-log.js";
export { type AccessRecord, parseCsvHeader, parseCsvRecord, parseJsonRecord } from "./access-record.js";
export { type ColorScale, colorScale, type ScaleKind, type ScaleOptions } from "./color-scale.js";
export { type HeatmapDesign, type HtmlOptions, renderHeatmapHtml } from "./html.js";
export type { KeyRangeLoad, LoadStep } from "./key-load.js";
export { type KeyPrefixer, keyPrefixer, type PrefixOptions } from "./key-prefix.js";
export { displayKey, parseKeyText } from "./key-text.js";
export type { HeatmapImageOptions } from "./layout.js";
export {
  type AccessOp,
  availableMetrics,
  cellValue,
  type HeatMatrix,
  type HeatRow,
  HOT_CPU,
  type MatrixOptions,
  METRIC_UNITS,
  METRICS,
  type Metric,
} from "./matrix.js";
export { detectPatterns, type PatternFinding, type PatternKind, RULES } from "./patterns.js";
export { renderPng } from "./png.js";
export {
  AccessBinner,
  AccessSampler,
  matrixFromRecords,
  type RecordsMatrixOptions,
} from "./records-matrix.js";
export { matrixFromSteps } from "./steps-matrix.js";
export { renderSvg } from "./svg.js";
export { SYNTHETIC_PATTERNS, type SyntheticPattern, syntheticAccess } from "./synthetic-access.js";
export type { TimeAxis } from "./time-axis.js";
export {
  type HeatmapFormat,
  type ImageFormat,
  type WriteHeatmapsOptions,
  type WrittenDesign,
  type WrittenHeatmaps,
  writeHeatmapFile,
  writeHeatmaps,
} from "./write-heatmaps.js";

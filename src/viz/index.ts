/**
 * Public API of the heatmap lab, in TiDB keyvisual's stages: input (access logs) → matrix (key and
 * time axes, rates per cell) → patterns (what the picture shows, in words) → render (PNG, SVG, HTML).
 */

export {
  type AccessOp,
  type AccessRecord,
  parseAccessCsvHeader,
  parseAccessCsvRecord,
  parseAccessJsonRecord,
} from "../access-log/access-record.js";
export { displayKey, parseKeyText } from "../keys/key-text.js";
export type { KeyRangeLoad, LoadStep } from "../load/key-load.js";
export type { AccessLogFormat } from "./input/access-log.js";
export { SYNTHETIC_PATTERNS, type SyntheticPattern, syntheticAccess } from "./input/synthetic-access.js";
export {
  availableHeatMetrics,
  HEAT_METRIC_UNITS,
  HEAT_METRICS,
  type HeatMatrix,
  type HeatMatrixOptions,
  type HeatMetric,
  type HeatRow,
  heatCellValue,
} from "./matrix/heat-matrix.js";
export { type KeyPrefixer, type KeyPrefixOptions, keyPrefixer } from "./matrix/key-prefix.js";
export { type AccessLogMatrixOptions, readAccessLogMatrix } from "./matrix/log-matrix.js";
export {
  AccessBinner,
  AccessSampler,
  matrixFromRecords,
  type RecordsMatrixOptions,
} from "./matrix/records-matrix.js";
export { matrixFromSteps } from "./matrix/steps-matrix.js";
export type { TimeAxis } from "./matrix/time-axis.js";
export { detectPatterns } from "./patterns/detect-patterns.js";
export type { FindingPlace, PatternFinding, PatternKind, PatternMeasures } from "./patterns/finding.js";
export { findingRule, findingSummary } from "./patterns/finding-text.js";
export {
  type ColorScale,
  type ColorScaleKind,
  type ColorScaleOptions,
  colorScale,
} from "./render/color-scale.js";
export { type HeatmapDesign, type HeatmapHtmlOptions, renderHeatmapHtml } from "./render/html.js";
export type { HeatmapImageOptions } from "./render/layout.js";
export { renderHeatmapPng } from "./render/png.js";
export { renderHeatmapSvg } from "./render/svg.js";
export {
  type HeatmapFormat,
  type HeatmapImageFormat,
  type WriteHeatmapsOptions,
  type WrittenDesignHeatmap,
  type WrittenHeatmaps,
  writeHeatmapFile,
  writeHeatmaps,
} from "./render/write-heatmaps.js";

/**
 * `keyspread/diagnose`: diagnose a live table — hot tablets, tablet boundaries and a key sample,
 * decoded through the schema, classified, with a ready scenario. `diagnoseTable` loads the
 * Bigtable client (or LevelDB) only when a table of that store is diagnosed; the rest is pure.
 */

export { type DecodedBoundary, decodeBoundary } from "../diagnose/decode/decoded-boundary.js";
export {
  type DecodedHotRange,
  decodeHotRange,
  type FieldSpan,
} from "../diagnose/decode/decoded-hot-range.js";
export { type EntityFields, entityFields } from "../diagnose/decode/entities.js";
export { type HotRange, type HotTablet, hotRanges } from "../diagnose/decode/hot-tablet.js";
export {
  type RowKeySample,
  type TableShares,
  type TabletSize,
  tableShares,
} from "../diagnose/decode/tablet-sizes.js";
export {
  type DiagnoseNote,
  type DiagnoseTableOptions,
  type DiagnoseTableResult,
  diagnoseTable,
} from "../diagnose/diagnose-table.js";
export {
  type ClassifyInput,
  classify,
  type Diagnosis,
  type DiagnosisKind,
  type Fact,
  type Remedy,
} from "../diagnose/diagnosis/classify.js";
export {
  type DiagnoseOptions,
  type DiagnoseReport,
  type DiagnoseStoreKind,
  diagnoseEvidence,
  type HeatSource,
  type TableEvidence,
  type UndecodedKeys,
} from "../diagnose/diagnosis/diagnose.js";
export { type PeakHeat, peakHeat } from "../diagnose/diagnosis/implied-rates.js";
export { DiagnoseRefusal, type RefusalCode } from "../diagnose/diagnosis/refusal.js";
export { AccessHeat, type AccessHeatLayout, accessHeatLayout } from "../diagnose/gather/access-log-heat.js";
export type { BigtableDiagnoseSource } from "../diagnose/gather/gather-bigtable.js";
export type { EmbeddedDiagnoseSource } from "../diagnose/gather/gather-embedded.js";
export { hotTabletWindows, type TimeWindow } from "../diagnose/gather/hot-tablet-windows.js";
export { parseHotTabletsJson } from "../diagnose/gather/hot-tablets-json.js";
export { diagnoseJson } from "../diagnose/report/report-json.js";
export { diagnoseText } from "../diagnose/report/report-text.js";
export { scenarioYaml } from "../diagnose/report/scenario-file.js";

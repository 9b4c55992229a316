/**
 * `keyspread/diagnose`: diagnose a live table — hot tablets, tablet boundaries and a key sample,
 * decoded through the schema, classified, with a ready scenario. `diagnoseTable` loads the
 * Bigtable client (or LevelDB) only when a table of that store is diagnosed; the rest is pure.
 */
export { AccessHeat, type AccessHeatLayout, accessHeatLayout } from "../diagnose/access-log-heat.js";
export {
  type ClassifyInput,
  classify,
  type Diagnosis,
  type DiagnosisKind,
  type Fact,
  type Remedy,
} from "../diagnose/classify.js";
export { type DecodedBoundary, decodeBoundary } from "../diagnose/decoded-boundary.js";
export { type DecodedHotRange, decodeHotRange, type FieldSpan } from "../diagnose/decoded-hot-range.js";
export {
  type DiagnoseOptions,
  type DiagnoseReport,
  type DiagnoseStoreKind,
  diagnoseEvidence,
  type HeatSource,
  type TableEvidence,
  type UndecodedKeys,
} from "../diagnose/diagnose.js";
export {
  type DiagnoseNote,
  type DiagnoseTableOptions,
  type DiagnoseTableResult,
  diagnoseTable,
} from "../diagnose/diagnose-table.js";
export type { BigtableDiagnoseSource } from "../diagnose/gather-bigtable.js";
export type { EmbeddedDiagnoseSource } from "../diagnose/gather-embedded.js";
export { type HotRange, type HotTablet, hotRanges } from "../diagnose/hot-tablet.js";
export { hotTabletWindows, type TimeWindow } from "../diagnose/hot-tablet-windows.js";
export { parseHotTabletsJson } from "../diagnose/hot-tablets-json.js";
export { diagnoseJson } from "../diagnose/report-json.js";
export { diagnoseText } from "../diagnose/report-text.js";
export { scenarioYaml } from "../diagnose/scenario-file.js";
export {
  type RowKeySample,
  type TableShares,
  type TabletSize,
  tableShares,
} from "../diagnose/tablet-sizes.js";

/** Access logs from live code: sampled records of a table's operations, in the format heatmap and replay read. */

export type { AccessOp, AccessRecord } from "./access-record.js";
export {
  FileAccessLogSink,
  type FileAccessLogSinkOptions,
  type FileAccessLogSinkStats,
} from "./file-sink.js";
export { type BigtableTableLike, instrumentBigtableTable } from "./instrument-bigtable.js";
export type { AccessLogSampling, AccessLogSink } from "./sink.js";

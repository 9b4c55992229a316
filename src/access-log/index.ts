/** Access logs from live code: sampled records of a table's operations, in the format heatmap and replay read. */
export { FileAccessLogSink, type FileSinkOptions, type FileSinkStats } from "./file-sink.js";
export { instrumentTable } from "./instrument-bigtable.js";
export type { AccessLogSampling, AccessLogSink } from "./sink.js";

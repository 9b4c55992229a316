/**
 * An access log file (JSONL, or CSV with a header) read in streaming passes, so memory is bounded
 * by what the caller keeps, not by the log.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import {
  type AccessRecord,
  accessRecordParsers,
  type CsvColumns,
  type KeyParser,
  parseAccessCsvHeader,
  quickCsvTimeAndKey,
  quickJsonTimeAndKey,
} from "../../access-log/access-record.js";
import { parseKeyText } from "../../keys/key-text.js";

export type AccessLogFormat = "jsonl" | "csv";

export interface ScanOptions {
  /** Default: from the file name (`.csv` is CSV, anything else JSONL). */
  format?: AccessLogFormat;
  /** Called as bytes are read: pass 1, then pass 2 for a reader that reads the log twice. */
  onProgress?: (pass: 1 | 2, bytesRead: number, totalBytes: number) => void;
}

function formatOf(path: string, options: ScanOptions): AccessLogFormat {
  return options.format ?? (path.toLowerCase().endsWith(".csv") ? "csv" : "jsonl");
}

function sizeOf(path: string): Promise<number> {
  return stat(path).then(
    (stats) => stats.size,
    (error: NodeJS.ErrnoException) => {
      throw new Error(`access log ${path}: ${error.code === "ENOENT" ? "no such file" : error.message}`);
    },
  );
}

/** Calls `handle` with the record of every non-empty line (after the header, for CSV). */
async function forEachRecordLine<R extends Pick<AccessRecord, "tsMs" | "key">>(
  path: string,
  format: AccessLogFormat,
  parsers: { json: (line: string) => R; csv: (line: string, columns: CsvColumns) => R },
  handle: (record: R) => void,
  onBytes: (bytesRead: number) => void,
): Promise<void> {
  let columns: CsvColumns | undefined;
  const parseLine = (line: string) => {
    if (format === "jsonl") handle(parsers.json(line));
    else if (columns === undefined) columns = parseAccessCsvHeader(line);
    else handle(parsers.csv(line, columns));
  };
  let lineNumber = 0;
  let pending = "";
  let bytesRead = 0;
  const consume = (line: string) => {
    lineNumber++;
    const trimmed = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (trimmed.length === 0 || (trimmed.charCodeAt(0) <= 32 && trimmed.trim() === "")) return;
    try {
      parseLine(trimmed);
    } catch (error) {
      throw new Error(`${path}:${lineNumber}: ${(error as Error).message}`);
    }
  };
  for await (const chunk of createReadStream(path, { encoding: "utf8", highWaterMark: 1 << 20 })) {
    const text = pending + (chunk as string);
    bytesRead += Buffer.byteLength(chunk as string);
    let from = 0;
    for (let newline = text.indexOf("\n"); newline >= 0; newline = text.indexOf("\n", from)) {
      consume(text.slice(from, newline));
      from = newline + 1;
    }
    pending = text.slice(from);
    onBytes(bytesRead);
  }
  if (pending !== "") consume(pending);
  if (format === "csv" && columns === undefined)
    throw new Error(`${path}: empty CSV file (expected a header line)`);
}

/**
 * One streaming pass that validates every field of every line and gives `handle` each record, its
 * key's bytes from `parseKey`. Throws on a log without records.
 */
export async function readAccessRecords(
  path: string,
  options: ScanOptions & { pass?: 1 | 2; parseKey?: KeyParser },
  handle: (record: AccessRecord) => void,
): Promise<void> {
  const totalBytes = await sizeOf(path);
  const pass = options.pass ?? 1;
  let records = 0;
  await forEachRecordLine(
    path,
    formatOf(path, options),
    accessRecordParsers(options.parseKey ?? parseKeyText),
    (record) => {
      records++;
      handle(record);
    },
    (bytes) => options.onProgress?.(pass, bytes, totalBytes),
  );
  if (records === 0) throw new Error(`${path}: no access records`);
}

/**
 * Reads the log twice, streaming: pass 1 gives `first` each record's time and key (a quick parse
 * of the two fields), then `second()` is asked for pass 2's consumer of whole records, which
 * validates every field of every line (`keyspread replay` sizes its steps from pass 1).
 */
export async function scanAccessLog(
  path: string,
  options: ScanOptions,
  first: (record: Pick<AccessRecord, "tsMs" | "key">) => void,
  second: () => (record: AccessRecord) => void,
): Promise<void> {
  const totalBytes = await sizeOf(path);
  let records = 0;
  await forEachRecordLine(
    path,
    formatOf(path, options),
    { json: quickJsonTimeAndKey, csv: quickCsvTimeAndKey },
    (record) => {
      records++;
      first(record);
    },
    (bytes) => options.onProgress?.(1, bytes, totalBytes),
  );
  if (records === 0) throw new Error(`${path}: no access records`);
  await readAccessRecords(path, { ...options, pass: 2 }, second());
}

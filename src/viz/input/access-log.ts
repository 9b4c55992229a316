/**
 * An access log file (JSONL, or CSV with a header) read in streaming passes, so memory is bounded
 * by what the caller keeps, not by the log.
 */
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
import { CanonicalAccessLine } from "./canonical-access-line.js";
import { EmptyAccessLogError } from "./empty-access-log-error.js";
import { fileChunks } from "./file-chunks.js";

export type AccessLogFormat = "jsonl" | "csv";

export interface ScanOptions {
  /** Default: from the file name (`.csv` is CSV, anything else JSONL). */
  format?: AccessLogFormat;
  /** Called as bytes are read: pass 1, then pass 2 for a reader that reads the log twice. */
  onProgress?: (pass: 1 | 2, bytesRead: number, totalBytes: number) => void;
}

const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const SPACE = 0x20;

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

/**
 * Calls `handle` with the bytes `[start, end)` of every line that is not blank (without its line
 * break), valid only during the call; errors it throws are prefixed with the file and line.
 */
async function forEachLine(
  path: string,
  handle: (bytes: Buffer, start: number, end: number) => void,
  onBytes: (bytesRead: number) => void,
): Promise<void> {
  let lineNumber = 0;
  const consume = (bytes: Buffer, start: number, lineEnd: number) => {
    lineNumber++;
    const end = lineEnd > start && bytes[lineEnd - 1] === CARRIAGE_RETURN ? lineEnd - 1 : lineEnd;
    if (end === start || (bytes[start]! <= SPACE && bytes.toString("utf8", start, end).trim() === "")) return;
    try {
      handle(bytes, start, end);
    } catch (error) {
      throw new Error(`${path}:${lineNumber}: ${(error as Error).message}`, { cause: error });
    }
  };
  /** The start of a line the last chunk ended within: a copy, as the chunk's buffer is reused. */
  let pending: Buffer | undefined;
  let bytesRead = 0;
  for await (const chunk of fileChunks(path)) {
    bytesRead += chunk.length;
    let from = 0;
    if (pending !== undefined) {
      const newline = chunk.indexOf(LINE_FEED);
      const joined = Buffer.concat([pending, newline < 0 ? chunk : chunk.subarray(0, newline)]);
      if (newline >= 0) consume(joined, 0, joined.length);
      pending = newline < 0 ? joined : undefined;
      from = newline < 0 ? chunk.length : newline + 1;
    }
    for (
      let newline = chunk.indexOf(LINE_FEED, from);
      newline >= 0;
      newline = chunk.indexOf(LINE_FEED, from)
    ) {
      consume(chunk, from, newline);
      from = newline + 1;
    }
    if (from < chunk.length) pending = Buffer.from(chunk.subarray(from));
    onBytes(bytesRead);
  }
  if (pending !== undefined) consume(pending, 0, pending.length);
}

/** Calls `handle` with the record of every line (after the header, for CSV), parsed from its text. */
function recordsOfLines<R>(
  format: AccessLogFormat,
  parsers: { json: (line: string) => R; csv: (line: string, columns: CsvColumns) => R },
  handle: (record: R) => void,
) {
  let columns: CsvColumns | undefined;
  return {
    line(bytes: Buffer, start: number, end: number): void {
      const line = bytes.toString("utf8", start, end);
      if (format === "jsonl") handle(parsers.json(line));
      else if (columns === undefined) columns = parseAccessCsvHeader(line);
      else handle(parsers.csv(line, columns));
    },
    /** Throws on a CSV file that had no header. */
    finish(path: string): void {
      if (format === "csv" && columns === undefined) throw new EmptyAccessLogError(path, "csv-header");
    },
  };
}

/** What a reader does with each record of the log. */
export interface AccessLogSink {
  /** A JSONL line in the common form, read in place: `line` and `bytes` are valid only during the call. */
  line(line: CanonicalAccessLine, bytes: Buffer): void;
  /** Any other record (CSV rows, JSONL lines of other shapes), its key's bytes from `parseKey`. */
  record(record: AccessRecord): void;
}

/**
 * One streaming pass that validates every field of every line: lines in the common JSONL form are
 * read in place (no string or object made for them), any other through the full parser. Throws on
 * a log without records.
 */
export async function readAccessLog(
  path: string,
  options: ScanOptions & { pass?: 1 | 2; parseKey?: KeyParser },
  sink: AccessLogSink,
): Promise<void> {
  const totalBytes = await sizeOf(path);
  const pass = options.pass ?? 1;
  const format = formatOf(path, options);
  let records = 0;
  const parsed = recordsOfLines(format, accessRecordParsers(options.parseKey ?? parseKeyText), (record) => {
    records++;
    sink.record(record);
  });
  const canonical = new CanonicalAccessLine();
  await forEachLine(
    path,
    (bytes, start, end) => {
      if (format === "jsonl" && canonical.read(bytes, start, end)) {
        records++;
        sink.line(canonical, bytes);
      } else parsed.line(bytes, start, end);
    },
    (bytes) => options.onProgress?.(pass, bytes, totalBytes),
  );
  parsed.finish(path);
  if (records === 0) throw new EmptyAccessLogError(path, "records");
}

/** `readAccessLog` giving `handle` every line as a record. */
export function readAccessRecords(
  path: string,
  options: ScanOptions & { pass?: 1 | 2 },
  handle: (record: AccessRecord) => void,
): Promise<void> {
  return readAccessLog(path, options, {
    line: (line, bytes) => handle(line.toRecord(bytes, parseKeyText)),
    record: handle,
  });
}

/**
 * Reads the log twice, streaming: pass 1 gives `first` each record's time and key (a quick parse
 * of the two fields), then `second()` is asked for pass 2's consumer of whole records, which
 * validates every field of every line (`keyspread replay` sizes its steps from pass 1). Returns
 * that consumer, fed.
 */
export async function scanAccessLog<Consumer extends { add(record: AccessRecord): void }>(
  path: string,
  options: ScanOptions,
  first: (record: Pick<AccessRecord, "tsMs" | "key">) => void,
  second: () => Consumer,
): Promise<Consumer> {
  const totalBytes = await sizeOf(path);
  let records = 0;
  const quick = recordsOfLines(
    formatOf(path, options),
    { json: quickJsonTimeAndKey, csv: quickCsvTimeAndKey },
    (record) => {
      records++;
      first(record);
    },
  );
  await forEachLine(path, quick.line, (bytes) => options.onProgress?.(1, bytes, totalBytes));
  quick.finish(path);
  if (records === 0) throw new EmptyAccessLogError(path, "records");
  const consumer = second();
  await readAccessRecords(path, { ...options, pass: 2 }, (record) => consumer.add(record));
  return consumer;
}

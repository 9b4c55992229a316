/**
 * The data API's evidence: SampleRowKeys (tablet boundaries with byte offsets) and a bounded row
 * sample — a row-sample filter that keeps about `count` rows of the table, read range by range
 * between the boundaries (so the sample spans the table, not its first rows), keys only (one cell,
 * value stripped), at most `count` rows and stopped at a deadline. Never a full scan.
 */
import type { Table } from "@google-cloud/bigtable";
import type { RowKeySample } from "../decode/tablet-sizes.js";

export async function sampleRowKeys(table: Table): Promise<RowKeySample[]> {
  const [samples] = await table.sampleRowKeys().catch((error: unknown) => {
    throw new Error(`SampleRowKeys of ${table.id}: ${(error as Error).message}`);
  });
  return samples.map((sample) => ({
    key: Buffer.from((sample.key ?? "") as Buffer),
    offsetBytes: Number(sample.offset ?? 0),
  }));
}

export interface RowSampleOptions {
  /** Rows to keep at most. */
  count: number;
  /** Stop reading after this long and keep what was read. */
  timeoutMs: number;
  /**
   * Bytes per row, to turn the table's bytes into rows for the sampling probability (assumption:
   * 1 KB, Google's reference row; a wrong guess changes the sample's size, never its bound).
   */
  rowBytes?: number;
}

export interface RowSample {
  keys: Buffer[];
  /** The row-sample filter's probability. */
  probability: number;
  /** The deadline stopped the read before every range was sampled. */
  timedOut: boolean;
}

const DEFAULT_ROW_BYTES = 1024;

/** Key ranges between consecutive SampleRowKeys boundaries (the last ends at the table's end). */
export function rangesBetween(boundaries: readonly RowKeySample[]): { start: Buffer; end: Buffer | null }[] {
  const keys = boundaries.map((sample) => sample.key).filter((key) => key.length > 0);
  const sorted = [...keys].sort(Buffer.compare);
  return [Buffer.alloc(0), ...sorted].map((start, index) => ({ start, end: sorted[index] ?? null }));
}

export function sampleProbability(count: number, totalBytes: number, rowBytes: number): number {
  const rows = totalBytes / rowBytes;
  return rows <= count ? 1 : count / rows;
}

export async function sampleRows(
  table: Table,
  boundaries: readonly RowKeySample[],
  options: RowSampleOptions,
): Promise<RowSample> {
  const totalBytes = Math.max(0, ...boundaries.map((sample) => sample.offsetBytes));
  const probability = sampleProbability(options.count, totalBytes, options.rowBytes ?? DEFAULT_ROW_BYTES);
  const ranges = rangesBetween(boundaries);
  const perRange = Math.max(1, Math.ceil(options.count / ranges.length));
  const deadline = Date.now() + options.timeoutMs;
  const keys: Buffer[] = [];
  for (const range of ranges) {
    const left = Math.min(perRange, options.count - keys.length);
    if (left <= 0) break;
    if (Date.now() >= deadline) return { keys, probability, timedOut: true };
    const timedOut = await readRange(table, range, probability, left, deadline, keys);
    if (timedOut) return { keys, probability, timedOut: true };
  }
  return { keys, probability, timedOut: false };
}

/** Appends the sampled keys of one range to `into`; true when the deadline cut it short. */
async function readRange(
  table: Table,
  range: { start: Buffer; end: Buffer | null },
  probability: number,
  limit: number,
  deadline: number,
  into: Buffer[],
): Promise<boolean> {
  const stream = table.createReadStream({
    ranges: [
      {
        ...(range.start.length > 0 ? { start: { value: range.start, inclusive: true } } : {}),
        ...(range.end === null ? {} : { end: { value: range.end, inclusive: false } }),
      },
    ],
    limit,
    decode: false,
    filter: [
      ...(probability < 1 ? [{ row: { sample: probability } }] : []),
      { column: { cellLimit: 1 } },
      { value: { strip: true } },
    ],
  } as Parameters<Table["createReadStream"]>[0]);
  const timer = setTimeout(() => stream.end(), Math.max(0, deadline - Date.now()));
  try {
    for await (const row of stream as AsyncIterable<{ id: Buffer }>) into.push(Buffer.from(row.id));
  } catch (error) {
    throw new Error(`sampling rows of ${table.id}: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
    stream.destroy();
  }
  return Date.now() >= deadline;
}

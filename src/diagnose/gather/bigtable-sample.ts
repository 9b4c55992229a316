/**
 * The data API's evidence: SampleRowKeys (tablet boundaries with byte offsets) and a bounded row
 * sample — a row-sample filter that keeps about `count` rows of the table, read range by range
 * between the boundaries, each range's share of `count` in proportion to its bytes (so the sample
 * spans the table as its data does, not its first rows nor its small ranges), keys only (one cell,
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

export interface SampleRange {
  start: Buffer;
  /** Exclusive; null is the table's end. */
  end: Buffer | null;
  /** The range's bytes by SampleRowKeys' offsets; undefined where they do not say (after the last key, with no end-of-table sample). */
  bytes: number | undefined;
}

/**
 * Key ranges between consecutive SampleRowKeys boundaries (the last ends at the table's end), each
 * with its bytes: the offset of its end key less that of its start. Bigtable closes the answer with
 * an empty key at the table's total bytes; without it (the emulator) the last range's bytes are unknown.
 */
export function rangesBetween(boundaries: readonly RowKeySample[]): SampleRange[] {
  const keyed = boundaries
    .filter((sample) => sample.key.length > 0)
    .sort((a, b) => Buffer.compare(a.key, b.key));
  const tableEnd = boundaries.find((sample) => sample.key.length === 0);
  const ranges: SampleRange[] = [];
  let start: RowKeySample = { key: Buffer.alloc(0), offsetBytes: 0 };
  for (const sample of keyed) {
    ranges.push({
      start: start.key,
      end: sample.key,
      bytes: Math.max(0, sample.offsetBytes - start.offsetBytes),
    });
    start = sample;
  }
  ranges.push({
    start: start.key,
    end: null,
    bytes: tableEnd ? Math.max(0, tableEnd.offsetBytes - start.offsetBytes) : undefined,
  });
  return ranges;
}

/**
 * `count` shared out over the ranges in proportion to their bytes (largest remainders, so the
 * shares sum to `count`). A range of unknown bytes weighs as the known ranges' mean; with no bytes
 * known at all, the ranges share equally.
 */
export function rangeQuotas(ranges: readonly SampleRange[], count: number): number[] {
  const known = ranges.flatMap((range) => (range.bytes === undefined ? [] : [range.bytes]));
  const knownTotal = known.reduce((sum, bytes) => sum + bytes, 0);
  const weights =
    knownTotal === 0 ? ranges.map(() => 1) : ranges.map((range) => range.bytes ?? knownTotal / known.length);
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const exact = weights.map((weight) => (count * weight) / total);
  const quotas = exact.map(Math.floor);
  const byRemainder = exact.map((value, index) => ({ index, remainder: value - quotas[index]! }));
  byRemainder.sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  let left = count - quotas.reduce((sum, quota) => sum + quota, 0);
  for (const { index } of byRemainder) {
    if (left <= 0) break;
    quotas[index]!++;
    left--;
  }
  return quotas;
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
  const quotas = rangeQuotas(ranges, options.count);
  const deadline = Date.now() + options.timeoutMs;
  const keys: Buffer[] = [];
  for (const [index, range] of ranges.entries()) {
    if (quotas[index] === 0) continue;
    if (Date.now() >= deadline) return { keys, probability, timedOut: true };
    const timedOut = await readRange(table, range, probability, quotas[index]!, deadline, keys);
    if (timedOut) return { keys, probability, timedOut: true };
  }
  return { keys, probability, timedOut: false };
}

/** Appends the sampled keys of one range to `into`; true when the deadline cut it short. */
async function readRange(
  table: Table,
  range: SampleRange,
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

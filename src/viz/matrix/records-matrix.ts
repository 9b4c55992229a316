/**
 * Heatmap matrix from access records, in two passes: the first (`AccessSampler`) learns the time
 * span and keeps a uniform sample of distinct keys to cut fine key bins from; the second counts
 * each record into its (fine bin, time column) cell. Memory is bounded by the sample and the matrix.
 * Pure; `log-matrix.ts` runs the same passes over a file (the second over records it kept, when
 * the log is short enough to keep).
 */
import type { AccessOp, AccessRecord } from "../../access-log/access-record.js";
import { DEFAULT_MAX_COLUMNS, type HeatMatrix, type HeatMatrixOptions } from "./heat-matrix.js";
import { planKeyAxis } from "./key-axis.js";
import { LoadGrid } from "./load-grid.js";
import { columnOf, niceTimeAxis } from "./time-axis.js";

export interface RecordsMatrixOptions extends HeatMatrixOptions {
  /** Distinct keys sampled for cutting bins; default 20,000. */
  sampleSize?: number;
}

/** FNV-1a over the key's bytes: cheap, and only needs to spread keys evenly for sampling. */
function keyHash(key: Buffer): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index++) hash = Math.imul(hash ^ key[index]!, 0x01000193);
  return hash >>> 0;
}

/**
 * Pass 1: the time span, and a uniform sample of the DISTINCT keys (bottom-k: the keys with the
 * smallest hashes). Sampling keys rather than accesses gives bins of roughly equal key counts, as
 * Key Visualizer's buckets have, however skewed the traffic; and a sample of the whole log (not its
 * beginning) keeps bins right for keys that move over time, such as sequential keys.
 */
export class AccessSampler {
  records = 0;
  private firstMs = Number.POSITIVE_INFINITY;
  private lastMs = Number.NEGATIVE_INFINITY;
  private readonly size: number;
  private candidates = new Map<number, Buffer>();
  /** Keys hashing at or above this are not among the `size` smallest. */
  private threshold = Number.POSITIVE_INFINITY;

  constructor(private readonly options: RecordsMatrixOptions) {
    this.size = options.sampleSize ?? 20_000;
    if (!Number.isInteger(this.size) || this.size < 1) {
      throw new Error(`sampleSize ${this.size}: expected a positive integer`);
    }
  }

  add(record: Pick<AccessRecord, "tsMs" | "key">): void {
    this.addTime(record.tsMs);
    this.addKey(record.key);
  }

  /** A record's time; with `addKey` once per distinct key, the same as `add` for every record. */
  addTime(tsMs: number): void {
    this.records++;
    if (tsMs < this.firstMs) this.firstMs = tsMs;
    if (tsMs > this.lastMs) this.lastMs = tsMs;
  }

  /** A key: repeats change nothing (the sample is of distinct keys), so callers that know a repeat may skip it. */
  addKey(key: Buffer): void {
    const hash = keyHash(key);
    if (hash >= this.threshold || this.candidates.has(hash)) return;
    this.candidates.set(hash, key);
    if (this.candidates.size >= 2 * this.size) this.keepSmallest();
  }

  private keepSmallest(): void {
    const kept = [...this.candidates].sort((a, b) => a[0] - b[0]).slice(0, this.size);
    const largest = kept.at(-1);
    // Called with 2 × size candidates: some are kept.
    if (largest === undefined) return;
    this.threshold = largest[0] + 1;
    this.candidates = new Map(kept);
  }

  /** Pass 2: counts records into the grid; `finish` merges it into the matrix. */
  binner(): AccessBinner {
    if (this.records === 0) throw new Error("no access records");
    if (this.candidates.size > this.size) this.keepSmallest();
    const sample = [...this.candidates.values()].sort(Buffer.compare);
    return new AccessBinner(sample, this.firstMs, this.lastMs, this.options);
  }
}

export class AccessBinner {
  private readonly grid: LoadGrid;
  private readonly finishAxis: () => HeatMatrix;

  constructor(sortedSample: readonly Buffer[], firstMs: number, lastMs: number, options: HeatMatrixOptions) {
    const plan = planKeyAxis(sortedSample, options);
    const time = niceTimeAxis(firstMs / 1000, lastMs / 1000, options.maxColumns ?? DEFAULT_MAX_COLUMNS, true);
    this.grid = new LoadGrid(plan.boundaries, time);
    this.finishAxis = () => this.grid.toMatrix(plan);
  }

  add(record: AccessRecord): void {
    this.addToBin(this.binOf(record.key), record.tsMs, record.op, record.bytes, record.latencyMs);
  }

  binOf(key: Buffer): number {
    return this.grid.binOf(key);
  }

  /** A record whose key's bin the caller looked up once for all the key's records. */
  addToBin(bin: number, tsMs: number, op: AccessOp, bytes: number, latencyMs: number | undefined): void {
    this.grid.addAccess(bin, columnOf(this.grid.time, tsMs / 1000), op, bytes, latencyMs);
  }

  finish(): HeatMatrix {
    return this.finishAxis();
  }
}

export function matrixFromRecords(
  records: readonly AccessRecord[],
  options: RecordsMatrixOptions = {},
): HeatMatrix {
  const sampler = new AccessSampler(options);
  for (const record of records) sampler.add(record);
  const binner = sampler.binner();
  for (const record of records) binner.add(record);
  return binner.finish();
}

/**
 * Individual operations as load: each step it is fed that step's operations (real keys, encoded for
 * the design), each standing for `weight` operations, and puts them on the tablets they hit. The
 * exact engine feeds it operations generated from a workload; a replay feeds it a recorded log.
 */
import { type CostModel, rangeReadCost, readServiceMs, writeCost } from "../cluster/cluster.js";
import { COST, QUANTITIES, STORED, type TabletMap } from "../cluster/tablets.js";
import { KeyBounds, KeyReservoir, RecentKeys } from "./key-samples.js";
import type { DynamicSink, LoadGenerator, ReadSample } from "./load.js";

export type Operation =
  | { kind: "write"; key: Buffer; bytes: number; weight: number }
  | {
      kind: "read";
      /** Index of the read pattern it belongs to (for latency per pattern). */
      pattern: number;
      /** Start keys of the ranges the read touches under this design. */
      starts: Buffer[];
      rowsPerRange: number;
      rowBytes: number;
      weight: number;
    };

/** Recent keys for load split points (TiKV samples just 20 request ranges per region). */
const RECENT_KEYS = 1024;
const RESERVOIR_KEYS = 4096;
/** Reads per pattern kept per step for the latency estimate. */
const LATENCY_SAMPLES = 64;

const weights = (quantity: number, value: number) => {
  const values = new Float64Array(QUANTITIES);
  values[quantity] = value;
  return values;
};

export class OperationLoad implements LoadGenerator {
  readonly channels = 0;
  private ops: Operation[] = [];
  private samples: { pattern: number; weightPerS: number; keys: Buffer[]; serviceMs: number }[] = [];
  private readonly recent = new RecentKeys(RECENT_KEYS);
  private readonly written = new KeyReservoir(RESERVOIR_KEYS);
  private readonly writtenBounds = new KeyBounds();

  constructor(private readonly cost: CostModel) {}

  /** The operations of the next step. */
  feed(ops: Operation[]): void {
    this.ops = ops;
  }

  staticRates(): void {}

  multipliers(): void {}

  peakMultipliers(): void {}

  emitDynamic(_tS: number, dtS: number, tablets: TabletMap, sink: DynamicSink): void {
    this.samples = [];
    const reads = new Map<number, number>();
    const kept = new Map<number, number>();
    for (const op of this.ops)
      if (op.kind === "read") reads.set(op.pattern, (reads.get(op.pattern) ?? 0) + 1);
    for (const op of this.ops) {
      if (op.kind === "write") {
        const cost = (writeCost(op.bytes, this.cost) * op.weight) / dtS;
        const bytesPerS = (op.bytes * op.weight) / dtS;
        sink.add(tablets.find(op.key), {
          writes: op.weight / dtS,
          rangeReads: 0,
          rows: 0,
          bytes: bytesPerS,
          stored: bytesPerS,
          cost,
        });
        this.recent.add(op.key, cost);
        this.written.add(op.key, op.bytes * op.weight);
        this.writtenBounds.add(op.key);
        continue;
      }
      const cost = (rangeReadCost(op.rowsPerRange, op.rowBytes, this.cost) * op.weight) / dtS;
      for (const key of op.starts) {
        sink.add(tablets.find(key), {
          writes: 0,
          rangeReads: op.weight / dtS,
          rows: (op.rowsPerRange * op.weight) / dtS,
          bytes: (op.rowsPerRange * op.rowBytes * op.weight) / dtS,
          stored: 0,
          cost,
        });
        this.recent.add(key, cost);
      }
      const sampled = kept.get(op.pattern) ?? 0;
      if (sampled < LATENCY_SAMPLES) {
        kept.set(op.pattern, sampled + 1);
        const patternReads = reads.get(op.pattern)!;
        this.samples.push({
          pattern: op.pattern,
          // Each kept sample stands for an equal share of its pattern's reads this step.
          weightPerS: (op.weight * patternReads) / Math.min(patternReads, LATENCY_SAMPLES) / dtS,
          keys: op.starts,
          serviceMs: readServiceMs(op.rowsPerRange, op.rowBytes, this.cost),
        });
      }
    }
  }

  readSamples(tablets: TabletMap): ReadSample[] {
    return this.samples.map((sample) => ({
      pattern: sample.pattern,
      weightPerS: sample.weightPerS,
      tablets: sample.keys.map((key) => tablets.find(key)),
      serviceMs: sample.serviceMs,
    }));
  }

  writtenKeys(): { min: Buffer; max: Buffer } | null {
    return this.writtenBounds.bounds;
  }

  layers(_multipliers: Float64Array, _integrals: Float64Array, start: Buffer, end: Buffer | null) {
    return {
      load: [{ density: this.recent.density(start, end), weights: weights(COST, 1) }],
      bytes: [
        { density: this.written.density(start, end), weights: weights(STORED, this.written.bytesPerKey) },
      ],
    };
  }
}

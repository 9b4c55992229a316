/**
 * Random loads over one-byte keys for the engine's tests: static writes spread between sampled keys
 * under one channel whose multiplier changes step by step, and bursts of writes on single keys.
 */
import fc from "fast-check";
import type { TabletSettings } from "../cluster/model.js";
import { COST, QUANTITIES, STORED, type TabletMap, WRITES } from "../cluster/tablets.js";
import { Density } from "../load/density.js";
import type { DynamicSink, LoadGenerator, SplitLayers } from "../load/load.js";

/** Writes landing on one one-byte key for one step, per second. */
interface Burst {
  key: number;
  writes: number;
}

/** A random load over one-byte keys: static writes spread between sampled keys under one channel, and bursts on single keys. */
export interface RandomLoad {
  staticKeys: { key: number; writesPerS: number }[];
  /** The channel's multiplier per step, repeated. */
  multipliers: number[];
  /** Bursts per step, repeated. */
  bursts: Burst[][];
}

export const ROW_BYTES = 1000;
export const CPU_PER_WRITE = 1e-4;

export const quantities = (writes: number) => {
  const values = new Float64Array(QUANTITIES);
  values[WRITES] = writes;
  values[STORED] = writes * ROW_BYTES;
  values[COST] = writes * CPU_PER_WRITE;
  return values;
};

export class RandomGenerator implements LoadGenerator {
  readonly channels = 1;
  private readonly density: Density;
  private step = 0;

  constructor(private readonly load: RandomLoad) {
    this.density = new Density(
      load.staticKeys.map(({ key, writesPerS }) => ({
        key: Buffer.of(key),
        values: quantities(writesPerS),
        spread: true,
      })),
    );
  }

  staticRates(start: Buffer, end: Buffer | null, out: Float64Array): void {
    this.density.addBelow(end, out, 1, 0);
    this.density.addBelow(start, out, -1, 0);
  }

  multipliers(_tS: number, _dtS: number, out: Float64Array): void {
    out[0] = this.load.multipliers[this.step % this.load.multipliers.length]!;
  }

  peakMultipliers(out: Float64Array): void {
    out[0] = Math.max(...this.load.multipliers);
  }

  emitDynamic(_tS: number, _dtS: number, tablets: TabletMap, sink: DynamicSink): void {
    for (const { key, writes } of this.load.bursts[this.step % this.load.bursts.length]!) {
      sink.add(tablets.find(Buffer.of(key)), {
        writes,
        rangeReads: 0,
        rows: 0,
        bytes: writes * ROW_BYTES,
        stored: writes * ROW_BYTES,
        cost: writes * CPU_PER_WRITE,
      });
    }
    this.step++;
  }

  readSamples() {
    return [];
  }

  writtenKeys() {
    return null;
  }

  layers(multipliers: Float64Array, integrals: Float64Array): SplitLayers {
    const load = quantities(0);
    load[COST] = multipliers[0]!;
    const bytes = quantities(0);
    bytes[STORED] = integrals[0]!;
    return {
      load: [{ density: this.density, weights: load }],
      bytes: [{ density: this.density, weights: bytes }],
    };
  }
}

export const SETTINGS: TabletSettings = {
  splits: 0,
  splitOpsPerS: 500,
  splitCpuShare: 0.3,
  splitSustain: 5,
  splitBytes: 2e6,
  balancePeriod: 60,
  rebalanceTime: 600,
  imbalance: 0.1,
  minCpuGap: 0.05,
  mergeLoadShare: 0.1,
  mergeAge: 3600,
};

/** Writes per second a step of `load` asks for: its static writes at the step's multiplier, and its bursts. */
export function writesPerS(load: RandomLoad, step: number): number {
  const staticWrites = load.staticKeys.reduce((sum, { writesPerS }) => sum + writesPerS, 0);
  const bursts = load.bursts[step % load.bursts.length]!.reduce((sum, { writes }) => sum + writes, 0);
  return staticWrites * load.multipliers[step % load.multipliers.length]! + bursts;
}

export const randomLoad: fc.Arbitrary<RandomLoad> = fc.record({
  staticKeys: fc.uniqueArray(
    fc.record({
      key: fc.integer({ min: 0, max: 255 }),
      writesPerS: fc.double({ min: 0, max: 400, noNaN: true }),
    }),
    { minLength: 1, maxLength: 12, selector: (source) => source.key },
  ),
  multipliers: fc.array(fc.double({ min: 0, max: 2, noNaN: true }), { minLength: 1, maxLength: 8 }),
  bursts: fc.array(
    fc.array(
      fc.record({
        key: fc.integer({ min: 0, max: 255 }),
        writes: fc.double({ min: 0, max: 3000, noNaN: true }),
      }),
      {
        maxLength: 3,
      },
    ),
    { minLength: 1, maxLength: 10 },
  ),
});

/** Tablet starts (besides the empty key) of a new table. */
export const boundaries = fc
  .uniqueArray(fc.integer({ min: 1, max: 255 }), { maxLength: 6 })
  .map((keys) => keys.sort((a, b) => a - b));

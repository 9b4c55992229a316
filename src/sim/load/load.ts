/**
 * What both engines hand the cluster: static load (per-second rates over key ranges, scaled by each
 * channel's multiplier — one channel per write group, one for reads), load that changes every step
 * (keys that move with time, or every operation of the exact engine), read samples for latency, and
 * where load and stored bytes lie for splitting.
 */

import type { TabletMap } from "../cluster/tablets.js";
import type { Layer } from "./split-point.js";

/** One step's load on one tablet, each quantity per second (the columns of `tablets.ts`: WRITES … COST). */
export interface StepLoad {
  writes: number;
  rangeReads: number;
  /** Rows the range reads scanned. */
  rows: number;
  /** Bytes written and read. */
  bytes: number;
  /** Bytes written that stay stored. */
  stored: number;
  /** CPU, in node-seconds per second. */
  cost: number;
}

/** Per-step load added straight to tablets. */
export interface DynamicSink {
  add(tablet: number, load: StepLoad): void;
}

/** Where load (its cost) lies in a key range, and where bytes are stored there: what a split point is chosen on. */
export interface SplitLayers {
  load: Layer[];
  bytes: Layer[];
}

/** One read (or a sample standing for many) for the latency estimate: its ranges' tablets and service time. */
export interface ReadSample {
  pattern: number;
  weightPerS: number;
  tablets: number[];
  serviceMs: number;
}

export interface LoadGenerator {
  /** Static load channels. */
  readonly channels: number;
  /** Adds each channel's per-second quantities over `[start, end)` at multiplier 1 to `out` (channel × QUANTITIES + quantity). */
  staticRates(start: Buffer, end: Buffer | null, out: Float64Array): void;
  /** Each channel's mean multiplier over `[tS, tS + dtS)`. */
  multipliers(tS: number, dtS: number, out: Float64Array): void;
  /** Each channel's largest multiplier over the run. */
  peakMultipliers(out: Float64Array): void;
  /** Adds the non-static load of `[tS, tS + dtS)`. */
  emitDynamic(tS: number, dtS: number, tablets: TabletMap, sink: DynamicSink): void;
  /** Reads of the latest step, for the latency estimate. */
  readSamples(tablets: TabletMap): ReadSample[];
  /**
   * The lowest and highest keys written so far, or null: the table holds no rows outside them, so
   * the first and last tablets' load is drawn within them (Key Visualizer shows rows, not key space).
   */
  writtenKeys(): { min: Buffer; max: Buffer } | null;
  /**
   * Where load (its cost) lies now in `[start, end)` (channels weighted by `multipliers`) and where
   * bytes are stored there (by `integrals`: each channel's multiplier summed over time). Layers may
   * hold keys outside the range; splits only look inside it.
   */
  layers(multipliers: Float64Array, integrals: Float64Array, start: Buffer, end: Buffer | null): SplitLayers;
}

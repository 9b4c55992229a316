/**
 * What both engines hand the cluster each step: load per tablet, sampled reads for latency, and
 * split candidates. The fast engine computes it from rates over sampled key-space footprints; the
 * exact engine from individual operations with real keys.
 */
import type { SplitCandidate, TabletMap } from "./tablets.js";

/** Per-tablet load of the current step, as rates per second. */
export class TabletLoad {
  writes = new Float64Array(0);
  rangeReads = new Float64Array(0);
  rows = new Float64Array(0);
  bytes = new Float64Array(0);
  /** Bytes stored by writes (the part of `bytes` that grows tablets). */
  stored = new Float64Array(0);
  /** Node-seconds per second. */
  cost = new Float64Array(0);

  reset(tabletCount: number): void {
    if (this.writes.length < tabletCount) {
      const size = Math.max(tabletCount, this.writes.length * 2);
      this.writes = new Float64Array(size);
      this.rangeReads = new Float64Array(size);
      this.rows = new Float64Array(size);
      this.bytes = new Float64Array(size);
      this.stored = new Float64Array(size);
      this.cost = new Float64Array(size);
    } else {
      for (const array of [this.writes, this.rangeReads, this.rows, this.bytes, this.stored, this.cost]) {
        array.fill(0, 0, tabletCount);
      }
    }
  }

  addWrite(tablet: number, writesPerS: number, bytesPerS: number, costPerS: number): void {
    this.writes[tablet]! += writesPerS;
    this.bytes[tablet]! += bytesPerS;
    this.stored[tablet]! += bytesPerS;
    this.cost[tablet]! += costPerS;
  }

  addRead(tablet: number, rangesPerS: number, rowsPerS: number, bytesPerS: number, costPerS: number): void {
    this.rangeReads[tablet]! += rangesPerS;
    this.rows[tablet]! += rowsPerS;
    this.bytes[tablet]! += bytesPerS;
    this.cost[tablet]! += costPerS;
  }
}

/** One read (or a sample standing for many) for the latency estimate: its ranges' tablets and service time. */
export interface ReadSample {
  pattern: number;
  weightPerS: number;
  tablets: number[];
  serviceMs: number;
}

export interface LoadGenerator {
  /** Adds the load of `[tS, tS + dtS)` to `load`, indexed by `tablets`. */
  emit(tS: number, dtS: number, tablets: TabletMap, load: TabletLoad): void;
  /** Reads of the step just emitted, for the latency estimate. */
  readSamples(tablets: TabletMap): ReadSample[];
  /** Keys inside tablet `index` where load was seen, weighted by operations, for a load split. */
  candidates(tablets: TabletMap, index: number): SplitCandidate[];
}

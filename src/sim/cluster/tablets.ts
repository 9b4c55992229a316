/**
 * Tablets: contiguous key ranges `[start, next start)`, each served by one node, kept sorted. A
 * split keeps both halves on the node that served the whole (moving one is the balancer's job); a
 * merge joins two cold neighbours. Each tablet keeps odometers of what it served, so load over any
 * window is a difference of readings.
 */

import { compareKeys, keyPrefix } from "./key-space.js";

/** The quantities a tablet serves, per second, in this order. */
export const WRITES = 0;
export const RANGE_READS = 1;
export const ROWS = 2;
/** Bytes moved by writes and reads. */
export const BYTES = 3;
/** Bytes stored by writes (the part of BYTES that grows a tablet). */
export const STORED = 4;
/** Node-seconds per second. */
export const COST = 5;
export const QUANTITIES = 6;

export interface Tablet {
  readonly start: Buffer;
  /** `keyPrefix(start)`, made once: lookups compare numbers first (`TabletMap.find`). */
  readonly startPrefix: number;
  node: number;
  /** False once merged into its left neighbour (lists that hold tablets skip it). */
  alive: boolean;
  /** Simulated second it was created: a split makes two new tablets, which may not merge for a while. */
  bornS: number;
  /** Created with the table (a salt bucket's boundary): kept, never merged away. */
  initialBoundary: boolean;
  /** Its row in the map's columns (`TabletColumns`). */
  slot: number;
  /** Cost and operations on the odometer at the start of the balancer period, and operations and cost at the last split check. */
  atPeriodCost: number;
  atPeriodOps: number;
  atCheck: number;
  atCheckCost: number;
  /** Cost (node-seconds) and operations served over the last whole balancer period. */
  lastPeriodCost: number;
  lastPeriodOps: number;
  /** When `atCheck` was read. */
  checkedS: number;
  /** When its bytes may next reach the size-split threshold. */
  sizeDueS: number;
  /** A load split that found no split point is retried from this second. */
  loadRetryS: number;
  /** A size split that found no split point is retried only once the tablet outgrows this. */
  sizeRetryBytes: number;
}

/** Readings that split and merge with the load. */
const PER_OPERATION_FIELDS = [
  "atPeriodCost",
  "atPeriodOps",
  "atCheck",
  "atCheckCost",
  "lastPeriodCost",
  "lastPeriodOps",
] as const;

export interface SplitPoint {
  key: Buffer;
  /** Share of the tablet's load, and of its stored bytes, left of `key`. */
  loadShare: number;
  bytesShare: number;
}

/** A tablet to split, where, and why (a load split or a size split). */
export interface TabletSplit {
  tablet: Tablet;
  point: SplitPoint;
  reason: "load" | "size";
}

/**
 * Per-tablet numbers kept in columns, one row per tablet slot, so the passes over tens of thousands
 * of tablets walk contiguous memory. Row `slot` of:
 * - `rates` (`channels × QUANTITIES`): static load of the tablet's span per channel and quantity,
 *   per second at a multiplier of 1; the engine folds it into the odometer as channel time passes;
 * - `syncedAt` (`channels`): each channel's integrated multiplier when `rates` were last folded in;
 * - `odometer` (`QUANTITIES`): totals served since the tablet was created (rate × seconds);
 * - `atSample` (`QUANTITIES`): the odometer at the start of the current sample window.
 */
export class TabletColumns {
  rates = new Float64Array(0);
  syncedAt = new Float64Array(0);
  odometer = new Float64Array(0);
  atSample = new Float64Array(0);
  private capacity = 0;
  private used = 0;
  private readonly free: number[] = [];

  constructor(readonly channels: number) {}

  allocate(): number {
    const slot = this.free.pop() ?? this.used++;
    if (slot >= this.capacity) this.grow(Math.max(64, this.capacity * 2));
    this.rates.fill(0, slot * this.channels * QUANTITIES, (slot + 1) * this.channels * QUANTITIES);
    this.syncedAt.fill(0, slot * this.channels, (slot + 1) * this.channels);
    this.odometer.fill(0, slot * QUANTITIES, (slot + 1) * QUANTITIES);
    this.atSample.fill(0, slot * QUANTITIES, (slot + 1) * QUANTITIES);
    return slot;
  }

  release(slot: number): void {
    this.free.push(slot);
  }

  private grow(capacity: number): void {
    const widen = (old: Float64Array, width: number) => {
      const wider = new Float64Array(capacity * width);
      wider.set(old);
      return wider;
    };
    this.rates = widen(this.rates, this.channels * QUANTITIES);
    this.syncedAt = widen(this.syncedAt, this.channels);
    this.odometer = widen(this.odometer, QUANTITIES);
    this.atSample = widen(this.atSample, QUANTITIES);
    this.capacity = capacity;
  }
}

export class TabletMap {
  readonly tablets: Tablet[] = [];
  readonly columns: TabletColumns;
  /** Bumps whenever tablet indices or nodes change, so callers can cache lookups. */
  version = 0;
  splits = { load: 0, size: 0 };
  merges = 0;

  /** `boundaries` are the starts of tablets 2..n (sorted, distinct, non-empty); `nodeOf(i)` places tablet i. */
  constructor(
    boundaries: Buffer[],
    nodeOf: (index: number) => number,
    channels: number,
    initialBoundaries: boolean,
  ) {
    this.columns = new TabletColumns(channels);
    [Buffer.alloc(0), ...boundaries].forEach((start, index) => {
      this.tablets.push(this.newTablet(start, nodeOf(index), 0, initialBoundaries && index > 0));
    });
  }

  /** Index of the tablet holding `key`. */
  find(key: Buffer): number {
    // Numbers for the first six bytes decide most comparisons without a native call.
    const prefix = keyPrefix(key);
    let low = 0;
    let high = this.tablets.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      const tablet = this.tablets[middle]!;
      const atOrBefore = compareKeys(tablet.start, tablet.startPrefix, key, prefix) <= 0;
      if (atOrBefore) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  end(index: number): Buffer | null {
    return this.tablets[index + 1]?.start ?? null;
  }

  /**
   * Splits each listed tablet at its point: both halves stay on the tablet's node, the new right
   * half taking its shares of the odometers. Returns the right halves, in the order given (the
   * caller sets both halves' `rates`). The new halves are inserted in one pass, not a splice each:
   * a check may split thousands of tablets.
   */
  split(splits: readonly TabletSplit[], nowS: number): Tablet[] {
    if (splits.length === 0) return [];
    const rights = new Map<Tablet, Tablet>();
    const made = splits.map(({ tablet, point, reason }) => {
      const right = this.splitOff(tablet, point, nowS);
      rights.set(tablet, right);
      this.splits[reason]++;
      return right;
    });
    const next: Tablet[] = [];
    for (const tablet of this.tablets) {
      next.push(tablet);
      const right = rights.get(tablet);
      if (right) next.push(right);
    }
    this.replace(next);
    return made;
  }

  /**
   * One pass joining neighbours while `mergeable(left, right)`: odometers and static rates add up
   * (a range's load is the sum of its parts); the result stays on the node that carried more, and
   * may merge on with the next tablet.
   */
  mergeEach(
    mergeable: (left: Tablet, right: Tablet) => boolean,
    onMerge: (joined: Tablet, gone: Tablet) => void,
  ): void {
    const next: Tablet[] = [];
    for (const tablet of this.tablets) {
      const left = next[next.length - 1];
      if (left !== undefined && mergeable(left, tablet)) {
        this.join(left, tablet);
        tablet.alive = false;
        this.columns.release(tablet.slot);
        this.merges++;
        onMerge(left, tablet);
      } else next.push(tablet);
    }
    this.replace(next);
  }

  private replace(next: Tablet[]): void {
    if (next.length === this.tablets.length) return;
    this.tablets.length = 0;
    for (const tablet of next) this.tablets.push(tablet);
    this.version++;
  }

  private splitOff(tablet: Tablet, point: SplitPoint, nowS: number): Tablet {
    const right = this.newTablet(point.key, tablet.node, nowS, false);
    const columns = this.columns;
    const channels = columns.channels;
    columns.syncedAt.copyWithin(right.slot * channels, tablet.slot * channels, (tablet.slot + 1) * channels);
    for (let q = 0; q < QUANTITIES; q++) {
      const leftShare = q === STORED ? point.bytesShare : point.loadShare;
      const from = tablet.slot * QUANTITIES + q;
      const to = right.slot * QUANTITIES + q;
      for (const column of [columns.odometer, columns.atSample]) {
        column[to] = column[from]! * (1 - leftShare);
        column[from]! *= leftShare;
      }
    }
    for (const field of PER_OPERATION_FIELDS) {
      right[field] = tablet[field] * (1 - point.loadShare);
      tablet[field] *= point.loadShare;
    }
    tablet.bornS = nowS;
    tablet.sizeRetryBytes = 0;
    return right;
  }

  private join(left: Tablet, right: Tablet): void {
    const columns = this.columns;
    const rateWidth = columns.channels * QUANTITIES;
    for (let k = 0; k < rateWidth; k++)
      columns.rates[left.slot * rateWidth + k]! += columns.rates[right.slot * rateWidth + k]!;
    for (const column of [columns.odometer, columns.atSample]) {
      for (let q = 0; q < QUANTITIES; q++)
        column[left.slot * QUANTITIES + q]! += column[right.slot * QUANTITIES + q]!;
    }
    if (right.lastPeriodCost > left.lastPeriodCost) left.node = right.node;
    for (const field of PER_OPERATION_FIELDS) left[field] += right[field];
    // As old as its parts: two cold neighbours that may merge may merge on with the next.
    left.bornS = Math.min(left.bornS, right.bornS);
    left.sizeRetryBytes = 0;
  }

  private newTablet(start: Buffer, node: number, bornS: number, initialBoundary: boolean): Tablet {
    return {
      start,
      startPrefix: keyPrefix(start),
      node,
      alive: true,
      bornS,
      initialBoundary,
      slot: this.columns.allocate(),
      atPeriodCost: 0,
      atPeriodOps: 0,
      atCheck: 0,
      atCheckCost: 0,
      lastPeriodCost: 0,
      lastPeriodOps: 0,
      checkedS: bornS,
      sizeDueS: bornS,
      loadRetryS: 0,
      sizeRetryBytes: 0,
    };
  }
}

/**
 * Hot ranges from an access log, for stores without a hot-tablets API (the embedded store): the
 * log's time cut into windows, the key space into slices of equal sampled keys (stand-ins for
 * tablets), and per window the slices that take far more than their share of the operations, or
 * the one key that takes most of them. Shaped like Bigtable's hot tablets, with the share of the
 * window's logged operations where Bigtable gives node CPU. Pure.
 */

import type { AccessRecord } from "../../access-log/access-record.js";
import { SpaceSaving } from "../../monitor/space-saving.js";
import type { HotTablet } from "../decode/hot-tablet.js";

/** Assumption: slices of the key space (Bigtable splits a busy table into tablets of this order; plausible 8–64). */
export const ACCESS_SLICES = 16;
/** Assumption: a slice is hot at this many times its even share of a window's operations (plausible 1.5–4). */
export const HOT_SLICE_FACTOR = 2;
/** A key that takes at least this share of a window's operations is one hot row (plausible 0.25–0.5). */
export const HOT_ROW_SHARE = 0.5;
export const ACCESS_WINDOWS = 4;

export interface AccessHeatLayout {
  /** Sorted keys from the log that start slices 2…K (the first slice starts at the table's start). */
  sliceStarts: Buffer[];
  startMs: number;
  endMs: number;
}

/** Slice starts at the quantiles of a key sample of the log. */
export function accessHeatLayout(keys: readonly Buffer[], startMs: number, endMs: number): AccessHeatLayout {
  const sorted = [...keys].sort(Buffer.compare);
  const starts: Buffer[] = [];
  for (let slice = 1; slice < ACCESS_SLICES; slice++) {
    const key = sorted[Math.floor((slice * sorted.length) / ACCESS_SLICES)];
    const previous = starts.at(-1);
    if (key && (previous === undefined || Buffer.compare(key, previous) > 0)) starts.push(key);
  }
  return { sliceStarts: starts, startMs, endMs };
}

interface WindowCounts {
  total: number;
  slices: number[];
  keys: SpaceSaving;
}

export class AccessHeat {
  private readonly windows: WindowCounts[];
  /** Each slice's smallest and largest logged key: the hot range's ends, the same in every window. */
  private readonly lows: (Buffer | undefined)[] = [];
  private readonly highs: (Buffer | undefined)[] = [];
  records = 0;

  constructor(private readonly layout: AccessHeatLayout) {
    this.windows = Array.from({ length: ACCESS_WINDOWS }, () => ({
      total: 0,
      slices: new Array(layout.sliceStarts.length + 1).fill(0),
      keys: new SpaceSaving(64),
    }));
  }

  private sliceOf(key: Buffer): number {
    let low = 0;
    let high = this.layout.sliceStarts.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (Buffer.compare(this.layout.sliceStarts[middle]!, key) <= 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  add(record: Pick<AccessRecord, "tsMs" | "key">): void {
    const span = Math.max(1, this.layout.endMs - this.layout.startMs);
    const index = Math.min(
      ACCESS_WINDOWS - 1,
      Math.max(0, Math.floor(((record.tsMs - this.layout.startMs) / span) * ACCESS_WINDOWS)),
    );
    const window = this.windows[index]!;
    const slice = this.sliceOf(record.key);
    window.total++;
    window.slices[slice]!++;
    const [low, high] = [this.lows[slice], this.highs[slice]];
    if (!low || Buffer.compare(record.key, low) < 0) this.lows[slice] = record.key;
    if (!high || Buffer.compare(record.key, high) > 0) this.highs[slice] = record.key;
    window.keys.offer(record.key.toString("hex"));
    this.records++;
  }

  hotTablets(table: string): HotTablet[] {
    const span = (this.layout.endMs - this.layout.startMs) / ACCESS_WINDOWS;
    const slices = this.layout.sliceStarts.length + 1;
    return this.windows.flatMap((window, index) => {
      if (window.total === 0) return [];
      const times = {
        startTime: new Date(this.layout.startMs + index * span),
        endTime: new Date(this.layout.startMs + (index + 1) * span),
      };
      const [top] = window.keys.top(1);
      if (top && (top.count - top.error) / window.total >= HOT_ROW_SHARE) {
        const key = Buffer.from(top.item, "hex");
        return [
          { table, startKey: key, endKey: key, ...times, nodeCpuPercent: (100 * top.count) / window.total },
        ];
      }
      return window.slices.flatMap((count, slice) =>
        count / window.total >= HOT_SLICE_FACTOR / slices
          ? [
              {
                table,
                // The slice's bounds (the last one reaches the table's end, as Bigtable's last tablet does).
                startKey: this.lows[slice]!,
                endKey: slice === slices - 1 ? Buffer.alloc(0) : this.highs[slice]!,
                ...times,
                nodeCpuPercent: (100 * count) / window.total,
              },
            ]
          : [],
      );
    });
  }
}

/**
 * Points waiting for their flush, grouped by device and by interval of their timestamp: each
 * group becomes one row (seed 003: "buffer 2 seconds of metrics … one batched row per device per
 * interval").
 */
import type { PutRow } from "../table/salted-table.js";
import type { MetricPoint } from "./point.js";
import { encodePoints, POINTS_QUALIFIER } from "./point-codec.js";

export interface AggregatedRow extends PutRow {
  cells: Map<string, Buffer>;
  /** Points the row holds. */
  points: number;
}

export class IntervalBuffer {
  points = 0;
  private readonly devices = new Map<string, Map<number, MetricPoint[]>>();

  constructor(readonly intervalMs: number) {}

  add(points: readonly MetricPoint[]): void {
    const interval = this.intervalMs;
    for (const point of points) {
      const start = point.ts - (point.ts % interval);
      let intervals = this.devices.get(point.deviceId);
      if (intervals === undefined) {
        intervals = new Map();
        this.devices.set(point.deviceId, intervals);
      }
      const group = intervals.get(start);
      if (group === undefined) intervals.set(start, [point]);
      else group.push(point);
    }
    this.points += points.length;
  }

  /**
   * One row per device and interval, encoded as they are pulled (a flush writes them in chunks);
   * `segment` is the key field that keeps flushes apart.
   */
  *rows(segment: number): Generator<AggregatedRow> {
    for (const [deviceId, intervals] of this.devices) {
      for (const [interval, points] of intervals) {
        yield {
          values: { deviceId, interval, segment },
          cells: new Map([[POINTS_QUALIFIER, encodePoints(points, interval)]]),
          points: points.length,
        };
      }
    }
  }
}

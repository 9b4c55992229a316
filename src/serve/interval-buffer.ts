/**
 * Points waiting for their flush, grouped by tenant, device and interval of their timestamp: each
 * group becomes one row (seed 003: "buffer 2 seconds of metrics … one batched row per device per
 * interval"). A device id belongs to its tenant: two tenants' devices of the same id never share
 * a row.
 */
import type { PutRow } from "../table/salted-table.js";
import type { MetricPoint } from "./point.js";
import { encodePoints, POINTS_QUALIFIER } from "./point-codec.js";

export interface AggregatedRow extends PutRow {
  cells: Map<string, Buffer>;
  /** The points the row holds, in the order they were acknowledged. */
  members: readonly MetricPoint[];
}

export class IntervalBuffer {
  points = 0;
  /** tenant → device → interval start → points */
  private readonly groups = new Map<string, Map<string, Map<number, MetricPoint[]>>>();

  constructor(readonly intervalMs: number) {}

  add(points: readonly MetricPoint[]): void {
    const interval = this.intervalMs;
    for (const point of points) {
      const start = point.ts - (point.ts % interval);
      let devices = this.groups.get(point.tenant);
      if (devices === undefined) {
        devices = new Map();
        this.groups.set(point.tenant, devices);
      }
      let intervals = devices.get(point.deviceId);
      if (intervals === undefined) {
        intervals = new Map();
        devices.set(point.deviceId, intervals);
      }
      const group = intervals.get(start);
      if (group === undefined) intervals.set(start, [point]);
      else group.push(point);
    }
    this.points += points.length;
  }

  /**
   * One row per tenant, device and interval, encoded as they are pulled (a flush writes them in
   * chunks); `segment` is the key field that keeps flushes apart.
   */
  *rows(segment: number): Generator<AggregatedRow> {
    for (const [tenant, devices] of this.groups) {
      for (const [deviceId, intervals] of devices) {
        for (const [interval, points] of intervals) {
          yield {
            values: { tenant, deviceId, interval, segment },
            cells: new Map([[POINTS_QUALIFIER, encodePoints(points, interval)]]),
            members: points,
          };
        }
      }
    }
  }
}

/**
 * Points waiting for their flush, grouped by tenant, device and interval of their timestamp: each
 * group becomes one row (the fleet incident: "buffer 2 seconds of metrics … one batched row per device per
 * interval"). A device id belongs to its tenant: two tenants' devices of the same id never share
 * a row. Points are encoded into their row's cell as they are added (`PointsCellBuilder`), so the
 * buffer holds bytes, not objects.
 */
import type { PutRow } from "../../../table/salted-table.js";
import type { MetricPoint } from "./point.js";
import { METRIC_POINTS_QUALIFIER, PointsCellBuilder } from "./point-codec.js";

export interface AggregatedRow extends PutRow {
  values: { tenant: string; deviceId: string; interval: number; segment: number; writer: string };
  cells: Map<string, Buffer>;
  /** The cell of `cells` that holds the points, encoded. */
  pointsCell: Buffer;
  /** Points the row holds. */
  points: number;
}

type Intervals = Map<number, PointsCellBuilder>;

/** One device id's rows by interval start, per tenant (almost always just one). */
interface DeviceGroups {
  tenant: string;
  intervals: Intervals;
  /** Other tenants using the same device id. */
  others?: Map<string, Intervals>;
}

export class IntervalBuffer {
  points = 0;
  private readonly devices = new Map<string, DeviceGroups>();

  constructor(readonly intervalMs: number) {}

  add(points: readonly MetricPoint[]): void {
    const interval = this.intervalMs;
    for (const point of points) {
      const start = point.ts - (point.ts % interval);
      let device = this.devices.get(point.deviceId);
      if (device === undefined) {
        device = { tenant: point.tenant, intervals: new Map() };
        this.devices.set(point.deviceId, device);
      }
      let intervals = device.intervals;
      if (device.tenant !== point.tenant) {
        device.others ??= new Map();
        intervals = device.others.get(point.tenant) ?? new Map();
        device.others.set(point.tenant, intervals);
      }
      let row = intervals.get(start);
      if (row === undefined) {
        row = new PointsCellBuilder(start);
        intervals.set(start, row);
      }
      row.add(point);
    }
    this.points += points.length;
  }

  /**
   * One row per tenant, device and interval; `segment` is the key field that keeps flushes apart,
   * `writer` (the replica id) keeps replicas apart.
   */
  *rows(segment: number, writer: string): Generator<AggregatedRow> {
    for (const [deviceId, device] of this.devices) {
      const tenants: [string, Intervals][] = [[device.tenant, device.intervals]];
      if (device.others) tenants.push(...device.others);
      for (const [tenant, intervals] of tenants) {
        for (const [interval, row] of intervals) {
          const pointsCell = row.finish();
          yield {
            values: { tenant, deviceId, interval, segment, writer },
            cells: new Map([[METRIC_POINTS_QUALIFIER, pointsCell]]),
            pointsCell,
            points: row.count,
          };
        }
      }
    }
  }
}

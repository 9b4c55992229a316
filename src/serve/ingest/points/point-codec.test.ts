import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { MetricPoint } from "./point.js";
import { decodeMetricPoints, encodeMetricPoints, PointsCellCorrupt } from "./point-codec.js";

const point = (deviceId: string, start: number) =>
  fc.record({
    tenant: fc.constantFrom("acme", "beta", "ünï"),
    deviceId: fc.constant(deviceId),
    ts: fc.integer({ min: start, max: start + 1_000_000 }),
    metrics: fc.dictionary(
      fc.string({ minLength: 1, maxLength: 8 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      {
        minKeys: 1,
        maxKeys: 5,
      },
    ),
  });

describe("points cell codec", () => {
  it("round-trips any points of one device", () => {
    fc.assert(
      fc.property(fc.array(point("dev-1", 1_764_484_000_000), { maxLength: 30 }), (points: MetricPoint[]) => {
        const cell = encodeMetricPoints(points, 1_764_484_000_000);
        expect(decodeMetricPoints(cell, "dev-1", 1_764_484_000_000)).toEqual(points);
      }),
    );
  });

  it("stores names once: 40 points of 4 metrics cost about 41 bytes each", () => {
    const points = Array.from({ length: 40 }, (_, i) => ({
      tenant: "acme",
      deviceId: "d",
      ts: 1000 + i * 50,
      metrics: { cpu: i, mem: 2 * i, temp: 20.5, disk: 0.25 },
    }));
    expect(encodeMetricPoints(points, 1000).length).toBeLessThan(42 * 40);
  });

  it("names the device and the damage in a corrupt cell", () => {
    const cell = encodeMetricPoints([{ tenant: "a", deviceId: "d", ts: 5, metrics: { x: 1 } }], 0);
    expect(() => decodeMetricPoints(cell.subarray(0, cell.length - 3), "d", 0)).toThrow(
      expect.objectContaining({
        name: PointsCellCorrupt.name,
        deviceId: "d",
        intervalStart: 0,
        byte: cell.length - 8,
        damage: "truncated",
      }),
    );
    expect(() => decodeMetricPoints(Buffer.from([9]), "d", 0)).toThrow(
      expect.objectContaining({ deviceId: "d", byte: 1, damage: "unknown-version" }),
    );
  });
});

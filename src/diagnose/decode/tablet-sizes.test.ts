import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fleetKey, fleetSchema } from "./fixtures.testsuite.js";
import { tableShares } from "./tablet-sizes.js";

describe("tableShares", () => {
  it("sizes each tablet from the offsets and credits its bytes to the bucket and device it starts at", () => {
    const [a, b] = [fleetKey(1), fleetKey(2)].sort(Buffer.compare);
    const shares = tableShares(fleetSchema, [
      { key: a!, offsetBytes: 100 },
      { key: b!, offsetBytes: 400 },
      { key: Buffer.alloc(0), offsetBytes: 1000 },
    ]);
    expect(shares.tablets.map((tablet) => tablet.bytes)).toEqual([100, 300, 600]);
    expect(shares.totalBytes).toBe(1000);
    expect(shares.tablets[0]!.start).toEqual({ kind: "table-edge" });
    const first = fleetSchema.decode(a!).values.deviceId;
    const second = fleetSchema.decode(b!).values.deviceId;
    expect(shares.byLeadingField).toEqual({
      field: "deviceId",
      values: [
        { value: second, share: 0.6 },
        { value: first, share: 0.4 },
      ],
    });
    expect(shares.undecoded).toBe(0);
  });

  it("counts boundaries the schema cannot decode, and never throws on them", () => {
    const shares = tableShares(fleetSchema, [
      { key: Buffer.from([0xff, 0x00, 0x01]), offsetBytes: 10 },
      { key: Buffer.alloc(0), offsetBytes: 20 },
    ]);
    expect(shares.undecoded).toBe(1);
    expect(shares.tablets[0]!.end.kind).toBe("raw");
  });

  it("bucket shares add up to the share of bytes whose start key reads a bucket", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 999_999 }), { minLength: 1, maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 10_000 }), { minLength: 31, maxLength: 31 }),
        (devices, sizes) => {
          const keys = devices.map((device) => fleetKey(device)).sort(Buffer.compare);
          const samples = [...keys, Buffer.alloc(0)].map((key, index) => ({
            key,
            offsetBytes: sizes.slice(0, index + 1).reduce((sum, size) => sum + size, 0),
          }));
          const shares = tableShares(fleetSchema, samples);
          const bucketTotal = shares.byBucket.reduce((sum, each) => sum + each.share, 0);
          expect(bucketTotal).toBeCloseTo(1, 9);
          expect(shares.tablets.reduce((sum, tablet) => sum + tablet.bytes, 0)).toBe(shares.totalBytes);
        },
      ),
    );
  });
});

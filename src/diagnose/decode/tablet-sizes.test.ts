import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fleetKey, fleetSchema } from "./fixtures.testsuite.js";
import { tableShares } from "./tablet-sizes.js";

describe("tableShares", () => {
  it("sizes each tablet from the offsets", () => {
    const [a, b] = [fleetKey(1), fleetKey(2)].sort(Buffer.compare);
    const shares = tableShares(
      fleetSchema,
      [
        { key: a!, offsetBytes: 100 },
        { key: b!, offsetBytes: 400 },
        { key: Buffer.alloc(0), offsetBytes: 1000 },
      ],
      [],
    );
    expect(shares.tablets.map((tablet) => tablet.bytes)).toEqual([100, 300, 600]);
    expect(shares.totalBytes).toBe(1000);
    expect(shares.tablets[0]!.start).toEqual({ kind: "table-edge" });
    expect(shares.undecoded).toBe(0);
  });

  it("counts a value's share over the sampled rows, not by the tablet its boundary starts", () => {
    // 2,000 rows of 1,000 devices; device 7 holds one row (0.05 %) but starts the biggest tablet.
    const rows = Array.from({ length: 2000 }, (_, i) => fleetKey(i === 0 ? 7 : 1000 + (i % 999), "cpu", i));
    const boundary = fleetKey(7, "cpu", 0);
    const shares = tableShares(
      fleetSchema,
      [
        { key: boundary, offsetBytes: 10 },
        { key: Buffer.alloc(0), offsetBytes: 1_000_000 },
      ],
      rows,
    );
    const seven = shares.byLeadingField!.values.find((each) => each.value === "acme-000007");
    expect(seven!.share).toBeCloseTo(1 / 2000, 9);
  });

  it("counts boundaries the schema cannot decode, and never throws on them", () => {
    const shares = tableShares(
      fleetSchema,
      [
        { key: Buffer.from([0xff, 0x00, 0x01]), offsetBytes: 10 },
        { key: Buffer.alloc(0), offsetBytes: 20 },
      ],
      [Buffer.from([0xff, 0x00])],
    );
    expect(shares.undecoded).toBe(1);
    expect(shares.tablets[0]!.end.kind).toBe("raw");
    expect(shares.byLeadingField!.values).toEqual([]);
  });

  it("bucket and value shares each add up to the decoded sample", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 999_999 }), { minLength: 1, maxLength: 60 }),
        (devices) => {
          const shares = tableShares(
            fleetSchema,
            [],
            devices.map((device) => fleetKey(device)),
          );
          expect(shares.byBucket.reduce((sum, each) => sum + each.share, 0)).toBeCloseTo(1, 9);
          expect(shares.byLeadingField!.values.reduce((sum, each) => sum + each.share, 0)).toBeCloseTo(1, 9);
        },
      ),
    );
  });
});

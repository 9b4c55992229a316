import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeBoundary } from "./decoded-boundary.js";
import { fleetKey, fleetSchema } from "./fixtures.testsuite.js";

describe("decodeBoundary", () => {
  it("decodes a key of the schema into its bucket and fields, times as dates", () => {
    const key = fleetKey(42, "cpu", 5);
    const boundary = decodeBoundary(fleetSchema, key);
    expect(boundary).toMatchObject({
      kind: "decoded",
      bucket: fleetSchema.bucketOfKey(key),
      values: { deviceId: "acme-000042", metric: "cpu", ts: new Date("2026-11-30T10:05:00Z") },
    });
  });

  it("reads an empty key as the table's edge", () => {
    expect(decodeBoundary(fleetSchema, Buffer.alloc(0))).toEqual({ kind: "table-edge" });
    expect(decodeBoundary(fleetSchema, null)).toEqual({ kind: "table-edge" });
  });

  it("keeps a key the schema cannot decode raw, with its bucket when the salt prefix reads", () => {
    const key = Buffer.concat([fleetKey(7).subarray(0, fleetSchema.saltPrefixLength), Buffer.from("acme-0")]);
    const boundary = decodeBoundary(fleetSchema, key);
    expect(boundary).toMatchObject({
      kind: "raw",
      hex: key.toString("hex"),
      bucket: fleetSchema.bucketOfKey(key),
    });
  });

  it("never throws, whatever the bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        const boundary = decodeBoundary(fleetSchema, Buffer.from(bytes));
        expect(["table-edge", "decoded", "raw"]).toContain(boundary.kind);
      }),
    );
  });
});

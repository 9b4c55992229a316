import { describe, expect, it } from "vitest";
import { decodeHotRange } from "./decoded-hot-range.js";
import {
  fleetKey,
  fleetSchema,
  hotTablet,
  tenantDeviceKey,
  tenantDeviceSchema,
} from "./fixtures.testsuite.js";
import { hotRanges } from "./hot-tablet.js";

describe("decodeHotRange", () => {
  const keys = Array.from({ length: 40 }, (_, i) => fleetKey(i, "cpu", i)).sort(Buffer.compare);

  it("decodes the sampled keys inside the range field by field, and only those", () => {
    const [range] = hotRanges([hotTablet(keys[10]!, keys[19]!, 88)]);
    const decoded = decodeHotRange(fleetSchema, range!, [...keys, keys[12]!]);
    expect(decoded.sampledKeys).toBe(10);
    expect(decoded.singleKey).toBe(false);
    const inside = keys.slice(10, 20).map((key) => fleetSchema.decode(key));
    const devices = inside.map((key) => key.values.deviceId as string).sort();
    expect(decoded.fields.find((span) => span.field === "deviceId")).toEqual({
      field: "deviceId",
      distinct: 10,
      min: devices[0],
      max: devices.at(-1),
    });
    expect(decoded.fields.find((span) => span.field === "metric")).toMatchObject({ distinct: 1, min: "cpu" });
    expect(decoded.buckets).toEqual([...new Set(inside.map((key) => key.bucket))].sort((a, b) => a - b));
    expect(decoded.fields.find((span) => span.field === "ts")!.min).toMatch(/^2026-11-30T10:/);
  });

  it("a range of one key is a single key; keys the schema cannot decode do not count in the fields", () => {
    const [range] = hotRanges([hotTablet(keys[3]!, keys[3]!, 99)]);
    const decoded = decodeHotRange(fleetSchema, range!, [keys[3]!]);
    expect(decoded.singleKey).toBe(true);
    const [raw] = hotRanges([hotTablet(Buffer.from([0xff]), Buffer.from([0xff, 0xff]), 50)]);
    const undecodable = decodeHotRange(fleetSchema, raw!, [Buffer.from([0xff, 0x01])]);
    expect(undecodable).toMatchObject({ sampledKeys: 1, fields: [], start: { kind: "raw" } });
  });

  it("counts the entities a range holds, not its row keys: one device's rows under a reverse timestamp are one", () => {
    const device = Array.from({ length: 300 }, (_, i) => tenantDeviceKey("acme", 42, i));
    const neighbours = [tenantDeviceKey("acme", 41), tenantDeviceKey("acme", 43)];
    const sample = [...device, ...neighbours].sort(Buffer.compare);
    const [range] = hotRanges([hotTablet(sample[1]!, sample.at(-2)!, 93)]);
    const decoded = decodeHotRange(tenantDeviceSchema, range!, sample);
    expect(decoded).toMatchObject({ sampledKeys: 300, entities: 1 });
    // The boundaries alone say so: nothing sorts between two keys of one device.
    expect(decodeHotRange(tenantDeviceSchema, range!, []).entities).toBe(1);
    const [wider] = hotRanges([hotTablet(sample[0]!, sample.at(-1)!, 93)]);
    expect(decodeHotRange(tenantDeviceSchema, wider!, sample).entities).toBe(3);
  });
});

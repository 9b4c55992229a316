import { describe, expect, it } from "vitest";
import { compileSchema } from "../../keys/schema.js";
import { entityFields } from "./entities.js";
import { fleetSchema, tenantDeviceSchema } from "./fixtures.testsuite.js";

const text = (segments: object[], salt?: object) =>
  compileSchema({
    version: 1,
    name: "t",
    layout: "text",
    separator: "#",
    segments,
    ...(salt ? { salt } : {}),
  } as never);
const ts = { field: "ts", codec: { type: "timestamp", unit: "ms" } };
const str = (field: string) => ({ field, codec: { type: "string" } });

describe("entityFields", () => {
  it("names an entity by the fields before the time, which lead the key", () => {
    expect(entityFields(tenantDeviceSchema)).toEqual({ fields: ["tenant", "deviceId"], leading: true });
    // Salted over the device, the device still leads its own rows.
    expect(entityFields(fleetSchema)).toEqual({ fields: ["deviceId", "metric"], leading: true });
  });

  it("a time-first key names its writer after the time, and no boundary pair bounds it", () => {
    expect(entityFields(text([ts, str("deviceId"), str("metric")]))).toEqual({
      fields: ["deviceId", "metric"],
      leading: false,
    });
  });

  it("a key without a time is its own entity; a salt over the time scatters an entity", () => {
    expect(entityFields(text([str("user"), str("item")]))).toEqual({
      fields: ["user", "item"],
      leading: true,
    });
    expect(entityFields(text([str("deviceId"), ts], { buckets: 8, fields: ["deviceId", "ts"] }))).toEqual({
      fields: ["deviceId"],
      leading: false,
    });
  });
});

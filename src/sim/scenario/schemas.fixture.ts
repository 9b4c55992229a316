/** Key schemas the simulator's tests replay workloads under. */
import type { SchemaSpec } from "../../keys/types.js";

/** The fleet incident's key: `deviceID#reverseTs`. */
export const deviceKey: SchemaSpec = {
  version: 1,
  name: "device-reverse-ts",
  layout: "text",
  segments: [
    { field: "deviceID", codec: { type: "string" } },
    { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
  ],
};

/** `deviceKey` behind a salt of `buckets` over `fields` (default: the device and the time). */
export const saltedDeviceKey = (buckets: number, fields = ["deviceID", "ts"]): SchemaSpec => ({
  ...deviceKey,
  name: `salt${buckets}-${fields.join("-")}`,
  salt: { buckets, fields },
});

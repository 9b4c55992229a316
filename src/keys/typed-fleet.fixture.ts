/** The fleet schema written in TypeScript, for the tests of the types a literal spec gives. */
import { compileSchema } from "./schema.js";

export const typedFleet = compileSchema({
  version: 1,
  name: "fleet",
  layout: "text",
  segments: [
    { field: "deviceId", codec: { type: "string" } },
    { field: "metric", codec: { type: "enum", values: ["cpu", "mem"] } },
    { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
    { field: "seq", codec: { type: "uint", width: 6 } },
  ],
  salt: { buckets: 16, fields: ["deviceId"] },
});

/** Shared test fixtures: the fleet incident's schema and keys. */
import { readFileSync } from "node:fs";
import { parseSchema } from "../../keys/schema.js";
import type { HotTablet } from "./hot-tablet.js";

export const fleetSchema = parseSchema(
  readFileSync(new URL("../../../examples/schemas/fleet.yaml", import.meta.url), "utf8"),
);

const T0 = Date.parse("2026-11-30T10:00:00Z");

/** A fleet key: device `acme-NNNNNN`, a metric, a time `minutes` after T0. */
export const fleetKey = (device: number, metric = "cpu", minutes = 0) =>
  fleetSchema.encode({
    deviceId: `acme-${String(device).padStart(6, "0")}`,
    metric,
    ts: new Date(T0 + minutes * 60_000),
  });

export function hotTablet(
  startKey: Buffer,
  endKey: Buffer,
  cpu: number,
  windowIndex = 0,
  table = "metrics",
): HotTablet {
  return {
    table,
    startKey,
    endKey,
    startTime: new Date(T0 + windowIndex * 3_600_000),
    endTime: new Date(T0 + (windowIndex + 1) * 3_600_000),
    nodeCpuPercent: cpu,
  };
}

/** The commonest incident key: tenant#deviceId#reverse timestamp, unsalted. */
export const tenantDeviceSchema = parseSchema(`
version: 1
name: tenant-device-reverse-ts
layout: text
separator: "#"
segments:
  - field: tenant
    codec: { type: string }
  - field: deviceId
    codec: { type: string }
  - field: ts
    codec: { type: timestamp, unit: ms, reverse: true }
`);

/** A tenant-device key: device `d-NNNNN` of `tenant`, a time `seconds` after T0. */
export const tenantDeviceKey = (tenant: string, device: number, seconds = 0) =>
  tenantDeviceSchema.encode({
    tenant,
    deviceId: `d-${String(device).padStart(5, "0")}`,
    ts: new Date(T0 + seconds * 1000),
  });

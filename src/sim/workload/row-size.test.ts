import { describe, expect, it } from "vitest";
import { compileSchema } from "../../keys/index.js";
import type { SchemaSpec } from "../../keys/types.js";
import { simulateScenario } from "../results/simulate.js";
import { validateScenario } from "../scenario/scenario.js";
import { deviceKey } from "../scenario/schemas.fixture.js";
import { largestRow, ROW_HARD_LIMIT_BYTES, ROW_RECOMMENDED_BYTES } from "./row-size.js";
import { CompiledGroup } from "./workload.js";

const deviceOnly: SchemaSpec = {
  version: 1,
  name: "device",
  layout: "text",
  segments: [{ field: "deviceID", codec: { type: "string" } }],
};

const group = (schema: SchemaSpec, entities: number, deviceID: string, writesPerS: number, batch?: number) =>
  new CompiledGroup(
    compileSchema(schema),
    { name: "g", entities, fields: { deviceID }, writesPerS, arrival: { kind: "steady" } },
    { name: "d", schema, ...(batch === undefined ? {} : { batch }) },
    1024,
    0,
  );

const WEEK_S = 7 * 86400;

describe("the largest row", () => {
  it("flags one key written 20,000 times/s of 1 KB for a week against Bigtable's 256 MB row limit", () => {
    const scenario = validateScenario({
      name: "one-row",
      duration: "2m",
      cluster: { nodes: 3 },
      workload: {
        rowBytes: 1024,
        retention: "7d",
        groups: [{ name: "counter", entities: 1, fields: { deviceID: "the-one" }, writesPerS: 20_000 }],
      },
      designs: [{ name: "one-row", schema: deviceOnly, table: "existing" }],
    });
    const { guidance } = simulateScenario(scenario).designs[0]!.summary;
    // Every write lands in the one row and stays for the retention.
    expect(guidance.largestRow!.bytes).toBeGreaterThanOrEqual(20_000 * 1024 * WEEK_S * (1 - 1e-9));
    expect(guidance.largestRow!.bytes).toBeGreaterThan(ROW_HARD_LIMIT_BYTES);
    expect(guidance.largestRow!.ok).toBe(false);
    expect(guidance.meets).toBe(false);
  });

  it("holds what one key takes while it stays the same: a time in the key starts a row per grain", () => {
    const timed = largestRow([group(deviceKey, 1, "the-one", 20_000)], WEEK_S);
    // A millisecond key takes 20 writes of 1 KB at most.
    expect(timed.bytes).toBeLessThanOrEqual(20_000 * 1024 * 0.001 * (1 + 1e-9));
    expect(timed.ok).toBe(true);
    const batched = largestRow([group(deviceKey, 1000, "d-{i:04}", 2000, 10)], WEEK_S);
    expect(batched.bytes).toBeCloseTo(2 * 10 * 1024, -1);
  });

  it("shares a key's writes among the entities that write it, and keeps them no longer than the horizon", () => {
    for (const [template, keys] of [
      ["d-{i:04}", 1000],
      ["d-{i%4}", 4],
      ["d-{i/250}", 4],
      ["the-one", 1],
    ] as const) {
      const row = largestRow([group(deviceOnly, 1000, template, 100)], 3600);
      expect(row.bytes).toBeCloseTo(((100 * 1024) / keys) * 3600, -3);
      expect(row.ok).toBe(row.bytes <= ROW_RECOMMENDED_BYTES);
    }
  });
});

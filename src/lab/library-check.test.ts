import { describe, expect, it } from "vitest";
import { validateScenario } from "../sim/scenario/scenario.js";
import { MemoryStore } from "../store/memory/memory.js";
import { checkDesign } from "./library-check.js";

const deviceKey = {
  version: 1 as const,
  name: "device-reverse-ts",
  layout: "text" as const,
  segments: [
    { field: "deviceID", codec: { type: "string" as const } },
    { field: "ts", codec: { type: "timestamp" as const, unit: "ms" as const, reverse: true } },
  ],
};

const scenario = validateScenario({
  name: "check",
  cluster: { nodes: 2 },
  workload: {
    groups: [{ name: "fleet", entities: 500, fields: { deviceID: "dev-{i:04}" }, writesPerS: 100 }],
    reads: [{ name: "latest-10", kind: "latest", group: "fleet", limit: 10, perS: 1 }],
  },
  designs: [
    { name: "plain", schema: deviceKey },
    {
      name: "salted",
      schema: { ...deviceKey, name: "salted", salt: { buckets: 8, fields: ["deviceID", "ts"] } },
    },
    {
      name: "time-first",
      schema: {
        ...deviceKey,
        name: "time-first",
        segments: [deviceKey.segments[1]!, deviceKey.segments[0]!],
      },
    },
  ],
});

describe("checkDesign", () => {
  it("writes the sample and reads latest-N back exactly, reporting fan-out and spread", async () => {
    const plain = await checkDesign(scenario, "plain", new MemoryStore(), { rows: 400, entities: 4 });
    expect(plain).toMatchObject({ design: "plain", buckets: 1, bucketSkew: 1 });
    expect(plain.latest).toMatchObject({ n: 10, entities: 4, fanout: 1, correct: true });

    const salted = await checkDesign(scenario, "salted", new MemoryStore(), { rows: 400, entities: 4 });
    expect(salted.latest).toMatchObject({ fanout: 8, correct: true });
    expect(salted.bucketSkew).toBeLessThan(1.6);
  });

  it("says why a design cannot serve latest-N instead of failing", async () => {
    const check = await checkDesign(scenario, "time-first", new MemoryStore(), { rows: 100, entities: 2 });
    expect(check.rowsWritten).toBeGreaterThan(100);
    expect(check.latest).toHaveProperty("unavailable");
  });
});

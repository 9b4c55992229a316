import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../keys/index.js";
import type { ReadPattern, ScenarioDesign, WorkloadGroup } from "../scenario/scenario.js";
import { deviceKey, saltedDeviceKey } from "../scenario/schemas.fixture.js";
import { CompiledRead } from "./reads.js";
import { CompiledGroup } from "./workload.js";

function planLatest(
  schema: typeof deviceKey,
  {
    entities,
    writesPerS,
    batchS,
    limit,
  }: { entities: number; writesPerS: number; batchS: number; limit: number },
) {
  const group: WorkloadGroup = {
    name: "fleet",
    entities,
    fields: { deviceID: "dev-{i:06}" },
    writesPerS,
    arrival: { kind: "steady" },
  };
  const design: ScenarioDesign = { name: "d", schema, ...(batchS > 0 ? { batch: batchS } : {}) };
  const compiled = new CompiledGroup(compileSchema(schema), group, design, 256, 0);
  const read: ReadPattern = { name: "latest", kind: "latest", group: "fleet", perS: 1, limit };
  return { group: compiled, planned: new CompiledRead(read, compiled).plan(0, 0, 0) };
}

describe("a latest-N read", () => {
  it("asks for N points: with batching it reads only the rows that hold them", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }),
        fc.double({ min: 0.01, max: 100, noNaN: true }),
        fc.constantFrom(0, 1, 2, 5, 10, 60),
        fc.integer({ min: 1, max: 1000 }),
        (entities, perEntityPerS, batchS, limit) => {
          const { group, planned } = planLatest(deviceKey, {
            entities,
            writesPerS: entities * perEntityPerS,
            batchS,
            limit,
          });
          const rows = planned.rowsPerRange * planned.starts.length;
          // Enough rows to hold N points, and one row fewer would not be.
          expect(rows * group.pointsPerRow).toBeGreaterThanOrEqual(limit * (1 - 1e-9));
          expect((rows - 1) * group.pointsPerRow).toBeLessThan(limit);
          if (group.pointsPerRow === 1) expect(rows).toBe(limit);
        },
      ),
    );
  });

  it("shares the rows holding N points between the ranges a salt over the time fans it into", () => {
    const { group, planned } = planLatest(saltedDeviceKey(4), {
      entities: 1000,
      writesPerS: 1240,
      batchS: 2,
      limit: 100,
    });
    expect(planned.starts).toHaveLength(4);
    expect(planned.rowsPerRange).toBe(Math.ceil(Math.ceil(100 / group.pointsPerRow) / 4));
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateScenario } from "../../sim/scenario/scenario.js";
import { deviceKey } from "../../sim/scenario/schemas.fixture.js";
import { monthlyCost } from "./cost.js";

const withPrices = (cluster: Record<string, unknown>) =>
  validateScenario({
    name: "priced",
    cluster: { nodes: 3, ...cluster },
    workload: { groups: [{ name: "g", entities: 10, fields: { deviceID: "{i}" }, writesPerS: 10 }] },
    designs: [{ name: "current", schema: deviceKey }],
  });

describe("monthly cost", () => {
  it("is nodes × the node-hour price × 730 h plus binary GB kept × the storage type's GB-month price", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 500 }),
        fc.double({ min: 0, max: 1e15, noNaN: true }),
        fc.constantFrom("ssd" as const, "hdd" as const),
        fc.double({ min: 0.1, max: 3, noNaN: true }),
        (nodes, bytes, storage, nodeHour) => {
          const scenario = withPrices({
            pricePerNodeHour: nodeHour,
            pricePerSsdGbMonth: 0.2,
            pricePerHddGbMonth: 0.03,
          });
          const cost = monthlyCost(scenario, nodes, storage, bytes);
          expect(cost.nodes).toBeCloseTo(nodes * nodeHour * 730, 6);
          expect(cost.storage).toBeCloseTo((bytes / 2 ** 30) * (storage === "ssd" ? 0.2 : 0.03), 6);
          expect(cost.total).toBe(cost.nodes + cost.storage);
        },
      ),
    );
  });

  it("defaults to Google's us-central1 list prices", () => {
    const cost = monthlyCost(withPrices({}), 10, "ssd", 100 * 2 ** 30);
    expect(cost).toEqual({
      nodes: 10 * 0.65 * 730,
      storage: 100 * 0.17,
      total: 10 * 0.65 * 730 + 100 * 0.17,
    });
    expect(monthlyCost(withPrices({}), 10, "hdd", 100 * 2 ** 30).storage).toBeCloseTo(2.6, 9);
  });
});

import { describe, expect, it } from "vitest";
import { MINIMAL_SCENARIO } from "../../sim/scenario/minimal.fixture.js";
import { validateScenario } from "../../sim/scenario/scenario.js";
import { monthlyCost } from "./cost.js";
import { PRICES, price, priceOrNull, pricesUsed } from "./prices.js";

describe("the price registry", () => {
  it("gives every price a unit, a source page, the date it was read and where a scenario sets it", () => {
    expect(new Set(PRICES.map((each) => each.id)).size).toBe(PRICES.length);
    for (const each of PRICES) {
      expect(each.source, each.id).toMatch(/^https:\/\//);
      expect(each.read, each.id).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(each.unit, each.id).toMatch(/^USD per /);
      expect(each.scenarioField, each.id).toMatch(/^(cluster\.price|prices\.)/);
      // An assumption has a range around its value; a missing price names no value.
      if (each.assumption && each.value !== null) {
        expect(each.assumption.low).toBeLessThanOrEqual(each.value);
        expect(each.assumption.high).toBeGreaterThanOrEqual(each.value);
      }
    }
  });

  it("takes the scenario's price over the default and says which was used", () => {
    const defaults = validateScenario(MINIMAL_SCENARIO);
    const own = validateScenario({
      ...MINIMAL_SCENARIO,
      cluster: { nodes: 2, pricePerNodeHour: 1 },
      prices: { dataBoostSpuHour: 0.002, dataflowJobMonth: 500 },
    });
    const origin = (scenario: typeof own) =>
      Object.fromEntries(pricesUsed(scenario).map((used) => [used.id, used.origin]));
    expect(origin(defaults)).toMatchObject({
      "bigtable.nodeHour": "default",
      "bigtable.dataBoostSpuHour": "default",
      "dataflow.changeStreamJobMonth": "missing",
    });
    expect(origin(own)).toMatchObject({
      "bigtable.nodeHour": "scenario",
      "bigtable.ssdGiBMonth": "default",
      "bigtable.dataBoostSpuHour": "scenario",
      "dataflow.changeStreamJobMonth": "scenario",
    });
    expect(price(own, "bigtable.nodeHour")).toBe(1);
    expect(monthlyCost(own, 2, "ssd", 0).nodes).toBe(2 * 730);
    expect(monthlyCost(defaults, 2, "ssd", 0).nodes).toBeCloseTo(2 * 730 * 0.65);
  });

  it("names the field to set when a price has no default", () => {
    const scenario = validateScenario(MINIMAL_SCENARIO);
    expect(priceOrNull(scenario, "dataflow.changeStreamJobMonth")).toBeNull();
    expect(() => price(scenario, "dataflow.changeStreamJobMonth")).toThrow(
      expect.objectContaining({
        name: "MissingPriceError",
        id: "dataflow.changeStreamJobMonth",
        scenarioField: "prices.dataflowJobMonth",
      }),
    );
  });

  it("refuses a price that is not positive, naming it", () => {
    expect(() => validateScenario({ ...MINIMAL_SCENARIO, prices: { bigQueryScanTiB: 0 } })).toThrow(
      expect.objectContaining({
        name: "ScenarioError",
        problems: [expect.objectContaining({ field: "prices.bigQueryScanTiB", kind: "gt_value", value: 0 })],
      }),
    );
  });
});

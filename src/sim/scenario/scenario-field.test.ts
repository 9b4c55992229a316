import { describe, expect, it } from "vitest";
import { MINIMAL_SCENARIO } from "./minimal.fixture.js";
import { validateScenario } from "./scenario.js";
import { numericSetting, withNumericSetting } from "./scenario-field.js";

describe("scenario fields", () => {
  const scenario = validateScenario({ ...MINIMAL_SCENARIO, tablets: { splitOpsPerS: 3000 } });

  it("reads a set number, and undefined where the scenario leaves it to the model", () => {
    expect(numericSetting(scenario, "tablets.splitOpsPerS")).toBe(3000);
    expect(numericSetting(scenario, "tablets.splitBytes")).toBeUndefined();
    expect(numericSetting(scenario, "cluster.capacity.writesPerS")).toBeUndefined();
    expect(numericSetting(scenario, "cluster.nodes")).toBe(scenario.cluster.nodes);
  });

  it("sets a number at any depth on a copy, keeping the section's other settings", () => {
    const set = withNumericSetting(
      withNumericSetting(scenario, "cluster.capacity.writesPerS", 12_000),
      "tablets.splitBytes",
      1e8,
    );
    expect(set.cluster.capacity.writesPerS).toBe(12_000);
    expect(set.cluster.nodes).toBe(scenario.cluster.nodes);
    expect(set.tablets).toEqual({ ...scenario.tablets, splitBytes: 1e8 });
    expect(withNumericSetting(scenario, "workload.compression", 2).workload.compression).toBe(2);
    expect(withNumericSetting(scenario, "latency.baseMs", 3).latency.baseMs).toBe(3);
    expect(scenario.cluster.capacity.writesPerS).toBeUndefined();
    expect(scenario.tablets.splitBytes).toBeUndefined();
  });
});

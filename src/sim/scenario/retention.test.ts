import { describe, expect, it } from "vitest";
import { impliedRetention } from "./retention.js";
import { validateScenario } from "./scenario.js";
import { deviceKey } from "./schemas.fixture.js";

function scenario(workload: Record<string, unknown>) {
  return validateScenario({
    name: "retention",
    cluster: { nodes: 6 },
    workload: {
      groups: [{ name: "devices", entities: 1000, fields: { deviceID: "{hex8:i}" }, writesPerS: 1000 }],
      ...workload,
    },
    designs: [{ name: "current", schema: deviceKey }],
  });
}

describe("retention", () => {
  it("is the scenario's when set, else the longest window a declared read needs", () => {
    const reads = [
      { name: "latest", kind: "latest", group: "devices", perS: 10, limit: 10 },
      { name: "week", kind: "scan", group: "devices", perS: 1, window: "7d" },
      { name: "month", kind: "scan", group: "devices", perS: 0.1, window: "30d" },
      { name: "lookup", kind: "get", group: "devices", perS: 5, window: "2d" },
    ];
    expect(impliedRetention(scenario({ reads }))).toEqual({
      seconds: 30 * 86400,
      source: "reads",
      read: "month",
    });
    expect(impliedRetention(scenario({ reads, retention: "3d" }))).toEqual({
      seconds: 3 * 86400,
      source: "scenario",
    });
    expect(impliedRetention(scenario({ reads: [reads[0]] }))).toBeUndefined();
  });
});

/** A small fleet for tests that run many simulations: one customer's contiguous ids make most writes, on 4 nodes. */
import { type Scenario, validateScenario } from "./scenario.js";
import { deviceKey, saltedDeviceKey } from "./schemas.fixture.js";

export function smallFleet(workload: Record<string, unknown> = {}): Scenario {
  return validateScenario({
    name: "small-fleet",
    duration: "40m",
    step: "5s",
    cluster: { nodes: 4 },
    workload: {
      rowBytes: 256,
      groups: [
        { name: "hot", entities: 4000, fields: { deviceID: "acme-{i:06}" }, writesPerS: 20000 },
        { name: "rest", entities: 40000, fields: { deviceID: "{hex8:i}" }, writesPerS: 10000 },
      ],
      ...workload,
    },
    designs: [
      { name: "current", schema: deviceKey },
      { name: "salted", schema: saltedDeviceKey(8, ["deviceID"]) },
      { name: "current-on-3", schema: deviceKey, nodes: 3 },
    ],
  });
}

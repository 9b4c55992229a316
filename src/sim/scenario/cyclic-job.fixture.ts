/** A job with a cycle for tests: 1 KB rows under hashed device ids on 12 SSD nodes, the existing table, from `start`. */
import { validateScenario } from "./scenario.js";
import { deviceKey } from "./schemas.fixture.js";

export const cyclicJob = (writesPerS: number, arrival: unknown, start = "2026-01-01T00:00:00Z") =>
  validateScenario({
    name: "cycle",
    start,
    duration: "1h",
    cluster: { nodes: 12 },
    workload: {
      rowBytes: 1024,
      groups: [{ name: "job", entities: 100000, fields: { deviceID: "{hex8:i}" }, writesPerS, arrival }],
    },
    designs: [{ name: "as-is", schema: deviceKey, table: "existing" }],
  });

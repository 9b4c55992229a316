import { describe, expect, it } from "vitest";
import { parseScenario } from "./scenario.js";
import { saltedDeviceKey } from "./schemas.fixture.js";
import { simulateScenario } from "./simulate.js";

/** Mean CPU of each node over the run. */
function meanNodeCpu(timeline: { nodeCpu: number[] }[]): number[] {
  const nodes = timeline[0]!.nodeCpu.length;
  return Array.from(
    { length: nodes },
    (_, n) => timeline.reduce((sum, p) => sum + p.nodeCpu[n]!, 0) / timeline.length,
  );
}

describe("fast and exact engines", () => {
  it("agree on per-node utilisation within 5 % on a small salted scenario", () => {
    const scenario = parseScenario({
      name: "agree",
      duration: "5m",
      cluster: { nodes: 4 },
      workload: {
        rowBytes: 512,
        groups: [
          { name: "hot", entities: 500, fields: { deviceID: "acme-{i:04}" }, writesPerS: 300 },
          {
            name: "rest",
            entities: 3000,
            fields: { deviceID: "{hex8:i}" },
            writesPerS: 200,
            arrival: { kind: "burst", every: "1m", window: "20s" },
          },
        ],
        reads: [
          { name: "latest", kind: "latest", group: "hot", limit: 20, perS: 30 },
          { name: "day", kind: "scan", group: "hot", window: "1d", perS: 5 },
        ],
      },
      designs: [
        {
          name: "salt-by-time",
          schema: saltedDeviceKey(8),
        },
        {
          name: "salt-by-device",
          schema: saltedDeviceKey(8, ["deviceID"]),
        },
      ],
    });
    const fast = simulateScenario(scenario, { mode: "fast" }).designs;
    const exact = simulateScenario(scenario, { mode: "exact" }).designs;
    fast.forEach((design, d) => {
      const fastCpu = meanNodeCpu(design.timeline);
      const exactCpu = meanNodeCpu(exact[d]!.timeline);
      fastCpu.forEach((cpu, n) => {
        expect(Math.abs(cpu - exactCpu[n]!) / exactCpu[n]!, `${design.design} node ${n}`).toBeLessThan(0.05);
      });
      expect(design.summary.reads.map((r) => r.fanout)).toEqual(exact[d]!.summary.reads.map((r) => r.fanout));
    });
  });
});

import { describe, expect, it } from "vitest";
import type { DesignResult } from "../results/results.js";
import { simulateScenario } from "../results/simulate.js";
import { validateScenario } from "../scenario/scenario.js";
import { deviceKey, saltedDeviceKey } from "../scenario/schemas.fixture.js";

/** Each node's mean CPU over the steady state, hottest first (which node holds what is the balancer's arbitrary choice). */
function steadyNodeCpu(design: DesignResult): number[] {
  const points = design.timeline.filter((point) => point.t >= design.summary.steadyState.fromS);
  const nodes = points[0]!.nodeCpu.length;
  return Array.from(
    { length: nodes },
    (_, n) => points.reduce((sum, point) => sum + point.nodeCpu[n]!, 0) / points.length,
  ).sort((a, b) => b - a);
}

const scenario = validateScenario({
  name: "agree",
  duration: "12m",
  cluster: { nodes: 4 },
  // The scenario's own constants: a low split threshold cuts a workload small enough for the exact
  // engine into ~30 tablets a node, and a quick, tight balancer settles them within a few per cent,
  // so what is compared is the load each engine generates, not where a coarse tablet happened to land.
  tablets: { splitOpsPerS: 25, rebalanceTime: "2m", imbalance: 0.03, minCpuGap: 0.005 },
  workload: {
    rowBytes: 512,
    groups: [
      { name: "hot", entities: 500, fields: { deviceID: "acme-{i:04}" }, writesPerS: 900 },
      {
        name: "rest",
        entities: 3000,
        fields: { deviceID: "{hex8:i}" },
        writesPerS: 600,
        arrival: { kind: "burst", every: "1m", window: "20s" },
      },
    ],
    reads: [
      { name: "latest", kind: "latest", group: "hot", limit: 20, perS: 30 },
      { name: "hour", kind: "scan", group: "hot", window: "1h", perS: 5 },
    ],
  },
  designs: [
    { name: "unsalted", schema: deviceKey, table: "new" },
    { name: "salt-by-device", schema: saltedDeviceKey(8, ["deviceID"]) },
    { name: "salt-by-device-and-time", schema: saltedDeviceKey(8) },
  ],
});

describe("fast and exact engines", () => {
  const fast = simulateScenario(scenario, { mode: "fast" }).designs;
  const exact = simulateScenario(scenario, { mode: "exact" }).designs;

  it.each(fast.map((design, index) => [design.design, index] as const))(
    "agree on every node's steady-state CPU within 5 %: %s",
    (_name, index) => {
      const fastCpu = steadyNodeCpu(fast[index]!);
      const exactCpu = steadyNodeCpu(exact[index]!);
      fastCpu.forEach((cpu, n) => {
        expect(
          Math.abs(cpu - exactCpu[n]!) / exactCpu[n]!,
          `node ${n}: ${cpu} vs ${exactCpu[n]}`,
        ).toBeLessThan(0.05);
      });
      expect(fast[index]!.summary.reads.map((read) => read.fanout)).toEqual(
        exact[index]!.summary.reads.map((read) => read.fanout),
      );
    },
  );

  it("split the unsalted table and move its tablets in both", () => {
    for (const engine of [fast, exact]) {
      expect(engine[0]!.summary.tablets.loadSplits).toBeGreaterThan(0);
      expect(engine[0]!.summary.tablets.moves).toBeGreaterThan(0);
    }
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MINIMAL_SCENARIO } from "../scenario/minimal.fixture.js";
import { validateScenario } from "../scenario/scenario.js";
import { plannedBytesPerNode, storageNodesNeeded, storagePlanning } from "./storage-target.js";

const GIB = 2 ** 30;
const TIB = 2 ** 40;
const scenarioWith = (cluster: Record<string, unknown>) =>
  validateScenario({ ...MINIMAL_SCENARIO, cluster: { nodes: 2, ...cluster } });

describe("the autoscaler's storage target", () => {
  it("gives at least the nodes the bytes need at that target, and no more than one step over", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 2 ** 50, noNaN: true }),
        fc.integer({ min: 2560, max: 5120 }),
        fc.constantFrom<1 | 2>(1, 2),
        (bytes, target, factor) => {
          const scenario = scenarioWith({
            nodes: 2,
            nodeScalingFactor: factor,
            autoscaling: { storageTargetGiBPerNode: target },
          });
          const planning = storagePlanning(scenario, "ssd", factor, null);
          const nodes = storageNodesNeeded(bytes, planning);
          expect(nodes * target * GIB).toBeGreaterThanOrEqual(bytes * (1 - 1e-9));
          expect(nodes % factor).toBe(0);
          // The fewest: one step fewer would hold less than the bytes (or no node at all).
          expect(nodes - factor === 0 || (nodes - factor) * target * GIB < bytes * (1 + 1e-9)).toBe(true);
        },
      ),
    );
  });

  it("plans 2,560 GiB per SSD node and 8,192 per HDD node by default, 70 % of the limit without autoscaling", () => {
    expect(plannedBytesPerNode(scenarioWith({ autoscaling: {} }), "ssd")).toEqual({
      plannedBytesPerNode: 2560 * GIB,
      basis: "autoscaler",
    });
    expect(
      plannedBytesPerNode(scenarioWith({ storage: "hdd", autoscaling: {} }), "hdd").plannedBytesPerNode,
    ).toBe(8192 * GIB);
    expect(plannedBytesPerNode(scenarioWith({}), "ssd").plannedBytesPerNode).toBeCloseTo(0.7 * 5 * TIB);
  });

  it("sizes the fleet's ~108 TiB at 44 nodes under the default target, against 31 at 70 %", () => {
    const bytes = 108 * TIB;
    expect(
      storageNodesNeeded(bytes, storagePlanning(scenarioWith({ autoscaling: {} }), "ssd", 1, null)),
    ).toBe(44);
    expect(storageNodesNeeded(bytes, storagePlanning(scenarioWith({}), "ssd", 1, null))).toBe(31);
  });
});

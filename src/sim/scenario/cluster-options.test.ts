import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { storageTargetGiB } from "./cluster-options.js";
import { MINIMAL_SCENARIO } from "./minimal.fixture.js";
import { parseScenario, validateScenario } from "./scenario.js";

const withCluster = (cluster: Record<string, unknown>, designs: unknown[] = MINIMAL_SCENARIO.designs) =>
  validateScenario({ ...MINIMAL_SCENARIO, cluster: { nodes: 2, ...cluster }, designs });

describe("cluster options (node scaling factor, autoscaling, tiered storage)", () => {
  it("parses the three options with their defaults", () => {
    const scenario = withCluster({
      nodes: 4,
      nodeScalingFactor: 2,
      autoscaling: { cpuTarget: 0.6, minNodes: 4, maxNodes: 40 },
      tieredStorage: { coldAfter: "90d" },
    });
    expect(scenario.cluster).toMatchObject({
      nodeScalingFactor: 2,
      autoscaling: { cpuTarget: 0.6, minNodes: 4, maxNodes: 40 },
      tieredStorage: { coldAfter: 90 * 86_400 },
    });
    expect(storageTargetGiB(scenario.cluster.autoscaling!, "ssd", "ssd")).toBe(2560);
    expect(storageTargetGiB(scenario.cluster.autoscaling!, "hdd", "ssd")).toBe(8192);
    expect(storageTargetGiB({ storageTargetGiBPerNode: 4000 }, "ssd", "ssd")).toBe(4000);
  });

  it.each([
    [
      { nodes: 3, nodeScalingFactor: 2 },
      /cluster: 3 nodes under nodeScalingFactor 2; node counts must be even/,
    ],
    [
      { nodes: 4, storage: "hdd", nodeScalingFactor: 2 },
      /nodeScalingFactor 2 is not available on HDD clusters/,
    ],
    [{ nodeScalingFactor: 3 }, /nodeScalingFactor must be 1 or 2/],
    [{ autoscaling: { cpuTarget: 0.9 } }, /cpuTarget must be ≤ 0\.8/],
    [
      { autoscaling: { minNodes: 2, maxNodes: 21 } },
      /maxNodes may be at most 10 × cluster\.autoscaling\.minNodes/,
    ],
    [{ autoscaling: { minNodes: 5, maxNodes: 4 } }, /maxNodes must be ≥ cluster\.autoscaling\.minNodes/],
    [
      { autoscaling: { storageTargetGiBPerNode: 6000 } },
      /storageTargetGiBPerNode 6000 is outside 2560–5120 GiB/,
    ],
    [
      { storage: "hdd", autoscaling: { storageTargetGiBPerNode: 4000 } },
      /storageTargetGiBPerNode 4000 is outside 8192–16384 GiB, Bigtable's range for HDD/,
    ],
    [
      { nodes: 4, nodeScalingFactor: 2, autoscaling: { minNodes: 3, maxNodes: 8 } },
      /minNodes 3 must be even under nodeScalingFactor 2/,
    ],
    [{ tieredStorage: { coldAfter: "29d" } }, /coldAfter must be at least 30d/],
    [{ storage: "hdd", tieredStorage: { coldAfter: "60d" } }, /tieredStorage needs SSD storage/],
  ])("refuses %j, naming the field and what is allowed", (cluster, message) => {
    expect(() => withCluster(cluster)).toThrow(message);
  });

  it("checks a design's own node count and storage under its factor", () => {
    const design = { ...MINIMAL_SCENARIO.designs[0]!, name: "big", nodes: 5, nodeScalingFactor: 2 };
    expect(() => withCluster({ nodes: 4 }, [design])).toThrow(
      expect.objectContaining({
        name: "ScenarioError",
        problems: [expect.objectContaining({ field: "designs.0.nodes", kind: "even-nodes", value: 5 })],
      }),
    );
    expect(withCluster({ nodes: 4 }, [{ ...design, nodes: 6 }]).designs[0]!.nodeScalingFactor).toBe(2);
  });

  it("turns replication.autoscaling into an error pointing to cluster.autoscaling", () => {
    const text = readFileSync(
      new URL("../../../examples/checks/multi-cluster-reads.yaml", import.meta.url),
      "utf8",
    );
    expect(() =>
      parseScenario(text.replace(/replication:\n/, "replication:\n  autoscaling: true\n")),
    ).toThrow(/replication\.autoscaling is gone: declare cluster\.autoscaling/);
  });

  it("parses the issue 39 checks", () => {
    for (const file of ["tiered-storage-180d", "node-scaling-hot-row", "autoscaled-storage"]) {
      const text = readFileSync(new URL(`../../../examples/checks/${file}.yaml`, import.meta.url), "utf8");
      expect(() => parseScenario(text)).not.toThrow();
    }
  });
});

import { describe, expect, it } from "vitest";
import { counterKey, hotCounter } from "../../sim/scenario/hot-counter.fixture.js";
import { smallFleet } from "../../sim/scenario/small-fleet.fixture.js";
import { clusterOptionLines } from "../report/cluster-options-report.js";
import { adviseScenario } from "./advise.js";

const DAY_S = 86_400;

describe("the advisor's cluster options", () => {
  // The small fleet's salted key on its 4 nodes, kept 30 days as the fleet's is.
  const advice = adviseScenario(smallFleet({ retention: "30d" }), {
    candidates: "scenario",
    baseline: "current",
    exhaustive: false,
  });
  const options = advice.clusterOptions!;

  it("says tiered storage cannot help a 30-day retention, and marks it Preview", () => {
    expect(options.tieredStorage).toMatchObject({
      preview: true,
      offered: false,
      reason: "retention within threshold",
      coldAfterS: 30 * DAY_S,
      retentionS: 30 * DAY_S,
      infrequentBytes: 0,
    });
  });

  it("gives the autoscaler's targets for the answer within Bigtable's rules", () => {
    const targets = options.autoscaler;
    expect(targets.declared).toBe(false);
    expect(targets.storageTargetGiBPerNode).toBe(2560);
    expect(targets.maxNodes).toBeLessThanOrEqual(10 * targets.minNodes);
    expect(targets.maxWithinTenTimesMin).toBe(true);
    expect(targets.coversNeeded).toBe(true);
    // Half an SSD node's 5 TiB needs at least the nodes 70 % of it does.
    expect(targets.storageNodesAtTarget).toBeGreaterThanOrEqual(targets.storageNodesAtPlannedShare);
    expect(targets.storageTargetForPlannedShare).toBe(3584);
  });

  it("puts one line per option in the report (2x node scaling only where it applies)", () => {
    expect(options.nodeScaling).toBeUndefined(); // the hot customer's many ids split and spread
    expect(clusterOptionLines(options)).toHaveLength(2);
  });
});

describe("2x node scaling for one hot row", () => {
  // 20,000 writes/s of 256 B on one counter row: 0.89 of a standard node (fixed-cost share 0.5).
  const advice = adviseScenario(
    hotCounter(20_000, [{ name: "as-is", schema: counterKey, table: "existing" }]),
    {
      candidates: "scenario",
      exhaustive: false,
    },
  );
  const scaling = advice.clusterOptions!.nodeScaling!;

  it("halves the hot row's share of its node, counts even nodes and says it needs a new cluster", () => {
    expect(scaling.needsNewCluster).toBe(true);
    expect(scaling.hottestCpuAt2x).toBeCloseTo(scaling.hottestCpuAt1x / 2, 12);
    expect(scaling.nodes).not.toBeNull();
    expect(scaling.nodes! % 2).toBe(0);
    expect(clusterOptionLines(advice.clusterOptions!)).toHaveLength(3);
  });
});

import { describe, expect, it } from "vitest";
import { validateScenario } from "../../sim/scenario/scenario.js";
import { deviceKey } from "../../sim/scenario/schemas.fixture.js";
import { adviseScenario } from "./advise.js";

/** Hashed devices kept 30 days, with a dashboard that allows Data Boost and one that must be fresh. */
function scenario(prices: Record<string, number> = {}) {
  return validateScenario({
    name: "analytical-choices",
    duration: "10m",
    step: "10s",
    cluster: { nodes: 2 },
    prices,
    workload: {
      rowBytes: 256,
      retention: "30d",
      groups: [{ name: "devices", entities: 2000, fields: { deviceID: "{hex8:i}" }, writesPerS: 2000 }],
      reads: [
        { name: "dashboard", kind: "scan", group: "devices", window: "30d", perS: 0.5 },
        { name: "live-board", kind: "scan", group: "devices", window: "30d", perS: 0.5, staleness: "5m" },
      ],
    },
    designs: [{ name: "as-is", schema: deviceKey, table: "existing" }],
  });
}

describe("analytical choices", () => {
  it("offer Data Boost only to scans whose freshness allows it, and price all three ways", () => {
    const advice = adviseScenario(scenario(), { exhaustive: false, buckets: [4] });
    const choices = advice.analytical!;
    const allowed = Object.fromEntries(choices.scans.map((scan) => [scan.name, scan.dataBoostAllowed]));
    expect(allowed).toEqual({ dashboard: true, "live-board": false });
    const boost = choices.dataBoost!;
    // Only the allowed scan leaves the cluster on Data Boost, and only its SPUs are billed.
    const dashboard = choices.scans.find((scan) => scan.name === "dashboard")!.demand;
    expect(boost.cpuNodesFreed).toBeCloseTo(dashboard.averageSpus / 1000, 9);
    expect(boost.spuHoursPerMonth).toBeCloseTo(dashboard.averageSpus * 730, 6);
    // Every byte stays in Bigtable: its storage nodes are the whole retention's.
    expect(boost.nodes).toBeGreaterThanOrEqual(boost.storageNodes);
    expect(boost.costPerMonth).toBeCloseTo(boost.bigtable.total + boost.spuCost, 6);
    // The copies keep a day (no other read needs more) and move both scans out.
    const streams = choices.changeStreams;
    expect(streams.keepS).toBe(86_400);
    expect(streams.nodes).toBeLessThanOrEqual(boost.nodes);
    expect(choices.parquet.costPerMonth).toBeCloseTo(streams.bigtable.total, 6);
    // No price for the Dataflow job: change streams are priced without it, and say so.
    expect(streams.dataflowJobCost).toBeNull();
    expect(streams.costPerMonth).toBeNull();
    expect(advice.pricesUsed.find((used) => used.id === "dataflow.changeStreamJobMonth")!.origin).toBe(
      "missing",
    );
  }, 240_000);

  it("add the job's price when the scenario sets it, and name the cheaper choice", () => {
    const advice = adviseScenario(scenario({ dataflowJobMonth: 100_000 }), {
      exhaustive: false,
      buckets: [4],
    });
    const { changeStreams, dataBoost, cheapestPriced } = advice.analytical!;
    expect(changeStreams.costPerMonth).toBeCloseTo(changeStreams.pricedPerMonth + 100_000, 6);
    expect(cheapestPriced).toBe(
      dataBoost!.costPerMonth < changeStreams.costPerMonth! ? "data-boost" : "change-streams",
    );
  }, 240_000);
});

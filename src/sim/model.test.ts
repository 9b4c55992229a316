import { describe, expect, it } from "vitest";
import { rebalance } from "./balancer.js";
import { NODE_CAPACITY, rangeReadCost, writeCost } from "./cluster.js";
import { LatencyHistogram, requestCdf, shedShare } from "./latency.js";
import { TabletMap } from "./tablets.js";

const key = (text: string) => Buffer.from(text);
const settings = { baseMs: 2, serviceMs: 1, queueBoundMs: 2000 };

describe("node cost", () => {
  it("makes a 1 KB row cost exactly the published per-node rate, and bigger rows cost more", () => {
    const ssd = NODE_CAPACITY.ssd;
    expect(writeCost(1024, ssd) * 14_000).toBeCloseTo(1);
    expect(rangeReadCost(1, 1024, ssd) * 17_000).toBeCloseTo(1);
    expect(writeCost(4096, ssd)).toBeGreaterThan(writeCost(1024, ssd));
    // A 220 MB scan costs one node-second on top of its first row.
    expect(rangeReadCost(1 + 220e6 / 1024, 1024, ssd)).toBeCloseTo(1 + 1 / 17_000);
  });
});

describe("latency", () => {
  it("grows with utilisation like M/M/1 and sheds what a saturated node cannot serve", () => {
    const p99 = (rho: number) => {
      const histogram = new LatencyHistogram();
      histogram.add(
        1,
        Float64Array.from({ length: 241 }, (_, k) => requestCdf(0.05 * 12e6 ** (k / 240), rho, 1, settings)),
      );
      return histogram.quantile(0.99);
    };
    expect(p99(0.9)).toBeGreaterThan(5 * p99(0.1));
    expect(p99(1.5)).toBeGreaterThanOrEqual(2000);
    expect(shedShare(0.9)).toBe(0);
    expect(shedShare(2)).toBeCloseTo(0.5);
  });
});

describe("tablets", () => {
  it("split at the weighted middle, keep both halves on the node, and never split one key", () => {
    const tablets = new TabletMap([], () => 3);
    const candidates = [
      { key: key("a"), weight: 1 },
      { key: key("b"), weight: 1 },
      { key: key("c"), weight: 2 },
    ];
    expect(tablets.split(0, candidates, "load")).toBe(true);
    expect(tablets.tablets.map((t) => [t.start.toString(), t.node])).toEqual([
      ["", 3],
      ["c", 3],
    ]);
    expect(tablets.find(key("bz"))).toBe(0);
    expect(tablets.find(key("c"))).toBe(1);
    expect(tablets.split(1, [{ key: key("c"), weight: 9 }], "load")).toBe(false);
    expect(tablets.splits).toEqual({ load: 1, size: 0 });
  });
});

describe("balancer", () => {
  it("moves at most its throttle of tablets from the hottest node to the coldest", () => {
    const tablets = new TabletMap([key("b"), key("c"), key("d"), key("e")], () => 0);
    for (const tablet of tablets.tablets) tablet.periodCost = 10;
    expect(rebalance(tablets.tablets, 3, 2, 0.1, 0)).toBe(2);
    const perNode = [0, 1, 2].map((node) => tablets.tablets.filter((t) => t.node === node).length);
    expect(perNode).toEqual([3, 1, 1]);
  });

  it("leaves a node whose load is one tablet alone: moving it only moves the hotspot", () => {
    const tablets = new TabletMap([key("b")], (index) => index);
    tablets.tablets[0]!.periodCost = 100;
    expect(rebalance(tablets.tablets, 2, 5, 0.1, 0)).toBe(0);
  });
});

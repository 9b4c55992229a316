import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Density } from "../load/density.js";
import { findSplitPoint } from "../load/split-point.js";
import { closeSharePerPeriod, rebalance } from "./balancer.js";
import { keyAtFraction, keyFraction, mergeDistinct } from "./key-space.js";
import { LatencyHistogram, requestCdf, shedShare } from "./latency.js";
import { constantAt, MODEL_CONSTANTS } from "./model-constants.js";
import { COST, QUANTITIES, STORED, type Tablet, TabletMap, WRITES } from "./tablets.js";

const key = (text: string) => Buffer.from(text);
const settings = { baseMs: 2, serviceMs: 1, queueBoundMs: 2000 };

function values(quantity: number, value: number): Float64Array {
  const all = new Float64Array(QUANTITIES);
  all[quantity] = value;
  return all;
}

describe("the model's constants", () => {
  it("each name a source or an assumption, with a range around its default", () => {
    for (const [name, constant] of Object.entries(MODEL_CONSTANTS)) {
      expect(constant.source.length, name).toBeGreaterThan(20);
      expect(constant.low, name).toBeLessThanOrEqual(constant.value);
      expect(constant.value, name).toBeLessThanOrEqual(constant.high);
    }
  });

  it("take the worse end when pessimistic, and what the scenario set at every end", () => {
    expect(constantAt("ssdWritesPerS", "pessimistic")).toBe(10_000);
    expect(constantAt("ssdWritesPerS", "optimistic")).toBe(14_000);
    expect(constantAt("rebalanceS", "pessimistic")).toBe(1200);
    expect(constantAt("rebalanceS", "optimistic")).toBe(300);
    expect(constantAt("rebalanceS", "pessimistic", 42)).toBe(42);
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

describe("key space", () => {
  const keys = fc.uint8Array({ minLength: 0, maxLength: 12 }).map((bytes) => Buffer.from(bytes));

  it("maps a fraction of a range to a key inside it, at about that fraction", () => {
    fc.assert(
      fc.property(keys, keys, fc.double({ min: 0.01, max: 0.99, noNaN: true }), (x, y, fraction) => {
        const [a, b] = Buffer.compare(x, y) < 0 ? [x, y] : [y, x];
        const inside = keyAtFraction(a, b, fraction);
        if (inside === null) return;
        expect(Buffer.compare(a, inside)).toBeLessThan(0);
        expect(Buffer.compare(inside, b)).toBeLessThan(0);
        expect(Math.abs(keyFraction(a, b, inside) - fraction)).toBeLessThan(0.01);
      }),
    );
  });
});

describe("merging sorted key lists", () => {
  it("gives every key of every list of distinct keys once, in key order", () => {
    const key = fc.uint8Array({ minLength: 0, maxLength: 3, max: 3 }).map((bytes) => Buffer.from(bytes));
    const sortedList = fc
      .uniqueArray(key, { maxLength: 20, comparator: (a, b) => a.equals(b) })
      .map((keys) => keys.sort(Buffer.compare));
    fc.assert(
      fc.property(fc.array(sortedList, { maxLength: 4 }), (lists) => {
        const all = lists.flat().sort(Buffer.compare);
        const distinct = all.filter((k, i) => i === 0 || !k.equals(all[i - 1]!));
        expect(mergeDistinct(lists)).toEqual(distinct);
      }),
    );
  });
});

describe("density", () => {
  it("lists the distinct source keys strictly inside a range, however the range's ends fall among them", () => {
    // Short keys over few bytes: shared prefixes, repeated keys and ends equal to a key are common;
    // an end may also lie before or after every source key's shared first byte.
    const key = (first: fc.Arbitrary<number>) =>
      fc
        .tuple(first, fc.uint8Array({ minLength: 0, maxLength: 4, max: 3 }))
        .map(([head, bytes]) => Buffer.from([head, ...bytes]));
    const source = key(fc.constant(7));
    const end = key(fc.integer({ min: 6, max: 8 }));
    fc.assert(
      fc.property(fc.array(source, { maxLength: 30 }), end, fc.option(end), (keys, start, end) => {
        const density = new Density(keys.map((k) => ({ key: k, values: values(WRITES, 1), spread: true })));
        const inside = keys
          .filter((k) => Buffer.compare(k, start) > 0 && (end === null || Buffer.compare(k, end) < 0))
          .sort(Buffer.compare);
        const expected = inside.filter((k, i) => i === 0 || !k.equals(inside[i - 1]!));
        expect(density.keysInside(start, end)).toEqual(expected);
      }),
    );
  });

  it("spreads a sample up to the next sampled key and keeps an atom whole", () => {
    const spread = new Density([
      { key: key("a"), values: values(WRITES, 10), spread: true },
      { key: key("c"), values: values(WRITES, 10), spread: true },
    ]);
    const below = (k: string | null) => {
      const out = new Float64Array(QUANTITIES);
      spread.addBelow(k === null ? null : key(k), out);
      return out[WRITES]!;
    };
    expect(below("a")).toBe(0);
    expect(below("b")).toBeCloseTo(5, 0);
    expect(below("c")).toBe(10);
    // The last source has nothing to spread to: it is an atom at its key.
    expect(below("d")).toBe(20);
    const atom = new Density([{ key: key("a"), values: values(WRITES, 10), spread: false }]);
    expect(atom.weightBelow(key("a"), values(WRITES, 1))).toBe(0);
    expect(atom.weightBelow(key("a0"), values(WRITES, 1))).toBe(10);
  });
});

describe("split points", () => {
  const layer = (density: Density, quantity = COST) => ({ density, weights: values(quantity, 1) });

  it("halve a spread load anywhere between sampled keys", () => {
    const density = new Density([
      { key: key("a"), values: values(COST, 1), spread: true },
      { key: key("z"), values: values(COST, 0), spread: false },
    ]);
    const shares = { load: [layer(density)], bytes: [] };
    const point = findSplitPoint(key("a"), key("z"), [layer(density)], shares)!;
    expect(Buffer.compare(point.key, key("a"))).toBeGreaterThan(0);
    expect(Buffer.compare(point.key, key("z"))).toBeLessThan(0);
    expect(point.loadShare).toBeCloseTo(0.5, 2);
    // No byte layer: the stored bytes follow the load.
    expect(point.bytesShare).toBeCloseTo(point.loadShare);
  });

  it("never cut one key's load: a tablet whose load is one row cannot split", () => {
    const oneRow = new Density([{ key: key("m"), values: values(COST, 5), spread: false }]);
    expect(findSplitPoint(key(""), null, [layer(oneRow)], { load: [layer(oneRow)], bytes: [] })).toBeNull();
  });

  it("put the bytes where they were written, apart from where the load is now", () => {
    // A time-first key's tail: this step's writes at t8 and t9, everything before them stored behind.
    const now = new Density(
      ["t8", "t9"].map((front) => ({ key: key(front), values: values(COST, 1), spread: false })),
    );
    const history = new Density(
      ["t1", "t2", "t3", "t4"].map((written) => ({
        key: key(written),
        values: values(STORED, 1),
        spread: false,
      })),
    );
    const point = findSplitPoint(key("t"), null, [layer(now)], {
      load: [layer(now)],
      bytes: [layer(history, STORED)],
    })!;
    expect(point.loadShare).toBe(0.5);
    expect(point.bytesShare).toBe(1);
  });
});

describe("tablets", () => {
  it("split into halves on the same node that share the odometers, and merge back", () => {
    const tablets = new TabletMap([], () => 3, 1, false);
    const [whole] = tablets.tablets;
    tablets.columns.odometer[whole!.slot * QUANTITIES + WRITES] = 100;
    tablets.columns.odometer[whole!.slot * QUANTITIES + STORED] = 1000;
    tablets.split(
      [{ tablet: whole!, point: { key: key("c"), loadShare: 0.25, bytesShare: 0.75 }, reason: "load" }],
      60,
    );
    const [left, right] = tablets.tablets as [Tablet, Tablet];
    const read = (tablet: Tablet, quantity: number) =>
      tablets.columns.odometer[tablet.slot * QUANTITIES + quantity];
    expect([left.node, right.node]).toEqual([3, 3]);
    expect([read(left, WRITES), read(right, WRITES)]).toEqual([25, 75]);
    expect([read(left, STORED), read(right, STORED)]).toEqual([750, 250]);
    expect(tablets.find(key("bz"))).toBe(0);
    expect(tablets.find(key("c"))).toBe(1);
    tablets.mergeEach(
      () => true,
      () => {},
    );
    expect(tablets.tablets).toHaveLength(1);
    expect(read(tablets.tablets[0]!, WRITES)).toBe(100);
    expect(tablets.splits).toEqual({ load: 1, size: 0 });
    expect(tablets.merges).toBe(1);
  });
});

describe("balancer", () => {
  /** Tablets with the given loads (node CPU) on each node, in node order. */
  const cluster = (loads: number[][]) => {
    const nodeOf = loads.flatMap((node, index) => node.map(() => index));
    const tablets = new TabletMap(
      nodeOf.slice(1).map((_, index) => key(`k${String(index).padStart(4, "0")}`)),
      (index) => nodeOf[index]!,
      0,
      false,
    );
    loads.flat().forEach((load, index) => {
      tablets.tablets[index]!.lastPeriodCost = load * 60;
    });
    return tablets.tablets;
  };
  const nodeLoads = (tablets: Tablet[], nodes: number) =>
    Array.from({ length: nodes }, (_, node) =>
      tablets
        .filter((tablet) => tablet.node === node)
        .reduce((sum, tablet) => sum + tablet.lastPeriodCost / 60, 0),
    );
  const balance = { imbalance: 0.1, minCpuGap: 0.05, closeShare: closeSharePerPeriod(60, 600) };

  it("closes 90 % of an imbalance in its rebalance time however finely the load is cut", () => {
    for (const pieces of [40, 400]) {
      const tablets = cluster([Array.from({ length: pieces }, () => 8 / pieces), [], [], []]);
      let periods = 0;
      while (nodeLoads(tablets, 4)[0]! > 2 + 0.1 * 6 && periods < 100) {
        rebalance(tablets, 4, 60, balance);
        periods++;
      }
      // 600 s at 60 s a period: ten periods, give or take a tablet.
      expect(periods, `${pieces} pieces`).toBeGreaterThanOrEqual(8);
      expect(periods, `${pieces} pieces`).toBeLessThanOrEqual(12);
    }
  });

  it("leaves a node whose load is one tablet alone: moving it only moves the hotspot", () => {
    const tablets = cluster([[5], [0.1]]);
    expect(rebalance(tablets, 2, 60, balance)).toBe(0);
  });

  it("still moves one coarse tablet a period when every tablet is bigger than its share", () => {
    const tablets = cluster([[1, 1, 1, 1], [], [], []]);
    expect(rebalance(tablets, 4, 60, { ...balance, closeShare: 0.01 })).toBe(1);
  });
});

describe("docs/simulator.md", () => {
  it("names every constant of the model with its scenario field", () => {
    const docs = readFileSync(new URL("../../../docs/simulator.md", import.meta.url), "utf8");
    for (const constant of Object.values(MODEL_CONSTANTS)) {
      if (constant.field.startsWith("cluster.capacity")) continue; // one row per storage type
      expect(docs, constant.field).toContain(`\`${constant.field}\``);
    }
  });
});

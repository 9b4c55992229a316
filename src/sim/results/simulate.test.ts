import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SchemaSpec } from "../../keys/types.js";
import { MODEL_CONSTANTS } from "../cluster/model-constants.js";
import { cyclicJob } from "../scenario/cyclic-job.fixture.js";
import { validateScenario } from "../scenario/scenario.js";
import { deviceKey, saltedDeviceKey } from "../scenario/schemas.fixture.js";
import { simulateScenario } from "./simulate.js";
import { SETTLED_RATIO } from "./summary.js";

const timeFirst: SchemaSpec = {
  version: 1,
  name: "ts-device",
  layout: "text",
  segments: [
    { field: "ts", codec: { type: "timestamp", unit: "ms" } },
    { field: "deviceID", codec: { type: "string" } },
  ],
};

/** A fleet where one customer's contiguous id range makes most of the writes. */
function fleet(designs: unknown[], overrides: Record<string, unknown> = {}) {
  return validateScenario({
    name: "test-fleet",
    duration: "30m",
    cluster: { nodes: 6 },
    workload: {
      rowBytes: 256,
      groups: [
        { name: "hot", entities: 20000, fields: { deviceID: "acme-{i:06}" }, writesPerS: 30000 },
        { name: "rest", entities: 200000, fields: { deviceID: "{hex8:i}" }, writesPerS: 15000 },
      ],
    },
    designs,
    ...overrides,
  });
}

describe("simulateScenario", () => {
  it("refuses a run shorter than one step instead of simulating a whole step", () => {
    const scenario = fleet([{ name: "current", schema: deviceKey }], { step: "10m" });
    expect(() => simulateScenario(scenario, { durationS: 60 })).toThrow(
      expect.objectContaining({
        name: "DurationError",
        field: "duration",
        value: 60,
        allowed: "at least one step (10m)",
      }),
    );
  });

  it("keeps a timestamp-first key on one hot tail node whatever the node count", () => {
    const scenario = fleet([
      { name: "six", schema: timeFirst },
      { name: "twelve", schema: timeFirst, nodes: 12 },
    ]);
    const [six, twelve] = simulateScenario(scenario, { durationS: 600 }).designs;
    for (const result of [six!, twelve!]) {
      // 45,000 writes/s of 256 B all on the tail: 45,000 × 0.625 / 14,000 ≈ 2 node-CPUs on one node.
      expect(result.summary.hottestNodeCpu.last).toBeGreaterThan(1.9);
      expect(result.summary.medianNodeCpu.mean).toBeLessThan(0.05);
      // Splitting the tail (by load or size) only makes a new tail: the hot spot never moves off it.
      expect(result.summary.tablets.loadSplits + result.summary.tablets.sizeSplits).toBeGreaterThan(10);
      expect(result.summary.settledAfterS).toBeNull();
    }
    expect(twelve!.summary.hottestNodeCpu.mean).toBeCloseTo(six!.summary.hottestNodeCpu.mean, 1);
    expect(twelve!.costPerHour).toBeCloseTo(2 * six!.costPerHour);
  });

  it("spreads a salted key from the first minute", () => {
    const [result] = simulateScenario(fleet([{ name: "salt-48", schema: saltedDeviceKey(48) }])).designs;
    expect(result!.summary.maxOverMedian.first).toBeLessThan(1.2);
    expect(result!.summary.maxOverMedian.mean).toBeLessThan(1.2);
    expect(result!.summary.settledAfterS).toBe(0);
    expect(result!.summary.writes.shedShare).toBe(0);
  });

  it("adapts to an unsalted hot range over many keys, so a short test and a long one disagree", () => {
    const scenario = fleet([{ name: "current", schema: deviceKey, table: "new" }]);
    const [result] = simulateScenario(scenario, { durationS: 3 * 3600 }).designs;
    const cpu = result!.summary.hottestNodeCpu;
    expect(cpu.first).toBeGreaterThan(2);
    expect(cpu.first30m).toBeGreaterThan(1.5 * cpu.last30m);
    expect(result!.summary.maxOverMedian.last).toBeLessThan(1.5);
    expect(result!.summary.tablets.moves).toBeGreaterThan(10);
    expect(result!.summary.settledAfterS).toBeGreaterThanOrEqual(180);
  });

  it("multiplies a latest-100 read's fan-out by the salt buckets the read cannot bind", () => {
    const scenario = fleet(
      [
        { name: "unsalted", schema: deviceKey },
        { name: "salt-16", schema: saltedDeviceKey(16) },
        { name: "salt-256", schema: saltedDeviceKey(256) },
        { name: "salt-256-by-device", schema: saltedDeviceKey(256, ["deviceID"]) },
      ],
      {
        duration: "10m",
        cluster: { nodes: 24 },
        workload: {
          rowBytes: 256,
          groups: [
            { name: "devices", entities: 100000, fields: { deviceID: "{hex8:i}" }, writesPerS: 20000 },
          ],
          reads: [{ name: "latest-100", kind: "latest", group: "devices", limit: 100, perS: 1000 }],
        },
      },
    );
    const reads = Object.fromEntries(
      simulateScenario(scenario).designs.map((design) => [design.design, design.summary.reads[0]!]),
    );
    expect(reads.unsalted!.fanout).toBe(1);
    expect(reads["salt-16"]!.fanout).toBe(16);
    expect(reads["salt-256"]!.fanout).toBe(256);
    expect(reads["salt-256-by-device"]!.fanout).toBe(1);
    // Against the same spread of writes with fan-out 1 (a new unsalted table starts on one node).
    const oneRange = reads["salt-256-by-device"]!.p99Ms;
    expect(reads["salt-16"]!.p99Ms).toBeLessThan(2 * oneRange);
    expect(reads["salt-256"]!.p99Ms).toBeGreaterThan(2 * oneRange);
  });

  it("deals a pre-split new table's initial tablets over min(nodes, splits + 1) distinct nodes, salted or not", () => {
    for (const [design, splits] of [
      [{ name: "current", schema: deviceKey, table: "new" }, 47],
      [{ name: "current", schema: deviceKey, table: "new" }, 3],
      [{ name: "salted", schema: saltedDeviceKey(16, ["deviceID"]), table: "new" }, 9],
    ] as const) {
      // Before the first balancer run (a minute), so the tablets are where the table was created.
      const scenario = fleet([design], { tablets: { splits }, duration: "10s", sample: "10s" });
      // The exact engine deals the same tablets (checked once: it generates every operation).
      for (const mode of splits === 47 ? (["fast", "exact"] as const) : (["fast"] as const)) {
        const [result] = simulateScenario(scenario, { mode }).designs;
        expect(result!.summary.tablets.initial).toBe(splits + 1);
        const nodes = new Set(result!.loadSteps[0]!.ranges.map((range) => range.node));
        expect(nodes.size).toBe(Math.min(6, splits + 1));
        expect(result!.timeline[0]!.nodeCpu.filter((cpu) => cpu > 0)).toHaveLength(Math.min(6, splits + 1));
      }
    }
  });

  it("spreads a pre-split unsalted table from its first minute, where an unsplit one starts on one node", () => {
    const first = (splits: number) => {
      const scenario = fleet([{ name: "current", schema: deviceKey, table: "new" }], {
        tablets: { splits },
        duration: "1m",
      });
      return simulateScenario(scenario).designs[0]!.timeline[0]!;
    };
    const preSplit = first(47);
    expect(preSplit.hottestNodeCpu).toBeLessThanOrEqual(1.5 * preSplit.medianNodeCpu);
    const unsplit = first(0);
    expect(unsplit.nodeCpu.filter((cpu) => cpu > 0)).toHaveLength(1);
    expect(unsplit.hottestNodeCpu).toBeGreaterThan(3 * preSplit.hottestNodeCpu);
  });

  it("starts a salted table created without splits as one tablet on one node, and one created by table create at its buckets", () => {
    const salted = { name: "salted", schema: saltedDeviceKey(16, ["deviceID"]), table: "new" };
    const withoutSplits = simulateScenario(fleet([{ ...salted, splits: 0 }], { duration: "1m" })).designs[0]!;
    expect(withoutSplits.summary.tablets.initial).toBe(1);
    expect(withoutSplits.timeline[0]!.nodeCpu.filter((cpu) => cpu > 0)).toHaveLength(1);
    // An unsalted key has no buckets to pre-split at, whatever literal its keys start with.
    const literalFirst = { ...deviceKey, segments: [{ literal: "m" }, ...deviceKey.segments] };
    const unsalted = simulateScenario(
      fleet([{ name: "unsalted", schema: literalFirst, table: "new" }], { duration: "10s" }),
    );
    expect(unsalted.designs[0]!.summary.tablets.initial).toBe(1);
    const byTableCreate = simulateScenario(fleet([salted], { duration: "1m" })).designs[0]!;
    // One tablet per bucket, as `table create` splits (at every bucket's start after the first): no empty tablet before bucket 0.
    expect(byTableCreate.summary.tablets.initial).toBe(byTableCreate.schema.bucketCount);
    expect(byTableCreate.timeline[0]!.nodeCpu.filter((cpu) => cpu > 0)).toHaveLength(6);
  });

  it("makes an HDD point read's p99 exceed an SSD's at the same load: it waits for a disk seek", () => {
    const scenario = validateScenario({
      name: "hdd-vs-ssd",
      duration: "2m",
      cluster: { nodes: 3 },
      workload: {
        rowBytes: 1024,
        groups: [{ name: "g", entities: 1000, fields: { deviceID: "d-{i:04}" }, writesPerS: 30 }],
        reads: [{ name: "get", kind: "get", group: "g", perS: 10 }],
      },
      designs: [
        { name: "ssd", schema: deviceKey, storage: "ssd", table: "existing" },
        { name: "hdd", schema: deviceKey, storage: "hdd", table: "existing" },
      ],
    });
    for (const end of ["default", "pessimistic", "optimistic"] as const) {
      const [ssd, hdd] = simulateScenario(scenario, { modelEnd: end }).designs;
      // Both nearly idle: the difference is the seek, not queueing.
      expect(hdd!.summary.averageNodeCpu.mean).toBeLessThan(0.1);
      expect(hdd!.summary.reads[0]!.p99Ms).toBeGreaterThan(2 * ssd!.summary.reads[0]!.p99Ms);
    }
  });

  it("plans point gets with every field bound: one range even under a salt over the time", () => {
    const scenario = fleet([{ name: "salt-64", schema: saltedDeviceKey(64) }], {
      duration: "2m",
      workload: {
        groups: [{ name: "devices", entities: 1000, fields: { deviceID: "d{i:04}" }, writesPerS: 500 }],
        reads: [{ name: "get", kind: "get", group: "devices", perS: 100, window: "1d" }],
      },
    });
    const [result] = simulateScenario(scenario).designs;
    expect(result!.summary.reads[0]).toMatchObject({ name: "get", fanout: 1, rowsReturnedPerRead: 1 });
  });

  it("sizes storage from the retention, so nodes needed is the larger of CPU and storage", () => {
    const scenario = fleet([{ name: "salt-48", schema: saltedDeviceKey(48) }], {
      duration: "10m",
      workload: {
        rowBytes: 256,
        retention: "30d",
        groups: [{ name: "devices", entities: 100000, fields: { deviceID: "{hex8:i}" }, writesPerS: 45000 }],
      },
    });
    const [result] = simulateScenario(scenario).designs;
    const { storage, nodesNeeded } = result!.summary.guidance;
    // 45,000 rows/s × 256 B × 30 days ≈ 29.9 TB: far past six SSD nodes' 70 % of 5 TiB each.
    expect(storage.bytes).toBeCloseTo(45000 * 256 * 30 * 86400, -10);
    expect(storage.perNode.ok).toBe(false);
    expect(nodesNeeded.storage).toBe(Math.ceil(storage.bytes / (5 * 2 ** 40 * 0.7)));
    expect(nodesNeeded.storage).toBeGreaterThan(nodesNeeded.cpu!);
    expect(nodesNeeded.total).toBe(nodesNeeded.storage);
    expect(result!.summary.guidance.meets).toBe(false);
  });

  it("keeps what the reads need when no retention is set: a 30-day scan sizes storage for 30 days", () => {
    const workload = {
      rowBytes: 256,
      groups: [{ name: "devices", entities: 100000, fields: { deviceID: "{hex8:i}" }, writesPerS: 45000 }],
    };
    const scan = { name: "month", kind: "scan", group: "devices", perS: 0.001, window: "30d" };
    const withScan = fleet([{ name: "salt-48", schema: saltedDeviceKey(48) }], {
      duration: "2m",
      workload: { ...workload, reads: [scan] },
    });
    const keptByGc = fleet([{ name: "salt-48", schema: saltedDeviceKey(48) }], {
      duration: "2m",
      workload: { ...workload, retention: "30d", reads: [scan] },
    });
    const [implied] = simulateScenario(withScan).designs;
    const [stated] = simulateScenario(keptByGc).designs;
    expect(implied!.summary.guidance.storage.retentionS).toBe(30 * 86400);
    expect(implied!.summary.guidance.storage.bytes).toBeCloseTo(stated!.summary.guidance.storage.bytes, -6);
    expect(implied!.summary.guidance.nodesNeeded.storage).toBe(stated!.summary.guidance.nodesNeeded.storage);
  });

  it("starts an existing table split by its load and balanced: a spread key is flat from the start, a tail stays one node", () => {
    const scenario = fleet(
      [
        { name: "existing", schema: deviceKey, table: "existing" },
        { name: "tail", schema: timeFirst, table: "existing" },
      ],
      { duration: "10m" },
    );
    const [existing, tail] = simulateScenario(scenario).designs;
    expect(existing!.summary.settledAfterS).toBe(0);
    expect(existing!.summary.hottestNodeCpu.first).toBeLessThan(1.3 * existing!.summary.averageNodeCpu.mean);
    expect(tail!.summary.settledAfterS).toBeNull();
    expect(tail!.summary.hottestNodeCpu.first).toBeGreaterThan(1.9);
  });

  it("plans a get of a time-first key as one point read", () => {
    const scenario = fleet([{ name: "time-first", schema: timeFirst }], {
      duration: "2m",
      workload: {
        groups: [{ name: "devices", entities: 1000, fields: { deviceID: "d{i:04}" }, writesPerS: 500 }],
        reads: [{ name: "get", kind: "get", group: "devices", perS: 100, window: "1h" }],
      },
    });
    const [result] = simulateScenario(scenario).designs;
    expect(result!.summary.reads[0]).toMatchObject({ name: "get", fanout: 1, rowsReturnedPerRead: 1 });
  });

  it("places a declared get on a key a global sequence leads: it costs CPU on the tablets holding the rows read, not the tail", () => {
    const orderKey: SchemaSpec = {
      version: 1,
      name: "orders",
      layout: "text",
      segments: [{ literal: "order" }, { field: "orderId", codec: { type: "uint", width: 12 } }],
    };
    const orders = (getsPerS: number) =>
      validateScenario({
        name: "orders",
        duration: "5m",
        cluster: { nodes: 6 },
        workload: {
          rowBytes: 2048,
          groups: [
            {
              name: "orders",
              entities: 1,
              fields: { orderId: { sequence: { start: 1 } } },
              writesPerS: 2000,
            },
          ],
          reads:
            getsPerS > 0
              ? [{ name: "by-id", kind: "get", group: "orders", perS: getsPerS, window: "1d" }]
              : [],
        },
        designs: [{ name: "as-is", schema: orderKey, table: "existing" }],
      });
    const [idle] = simulateScenario(orders(0)).designs;
    const [read] = simulateScenario(orders(20000)).designs;
    expect(read!.summary.reads[0]).toMatchObject({ name: "by-id", fanout: 1, rowsReturnedPerRead: 1 });
    const cpu = (result: typeof read) =>
      result!.timeline.at(-1)!.nodeCpu.reduce((sum, each) => sum + each, 0);
    expect(cpu(read)).toBeGreaterThan(cpu(idle) * 1.2);
    // Every get is placed, on a range holding ids already written (the tail takes the writes).
    const last = read!.loadSteps.at(-1)!;
    const readsPerS = last.ranges.reduce((sum, range) => sum + range.readsPerS, 0);
    expect(readsPerS).toBeCloseTo(20000, -2);
    const tail = last.ranges.at(-1)!;
    expect(tail.readsPerS).toBeLessThan(readsPerS / 2);
  });

  it("names the design it cannot find", () => {
    expect(() => simulateScenario(fleet([{ name: "a", schema: deviceKey }]), { design: "b" })).toThrow(
      expect.objectContaining({
        name: "UnknownDesignError",
        design: "b",
        scenario: "test-fleet",
        designs: ["a"],
      }),
    );
  });
});

describe("a load judged over its cycle", () => {
  it("a burst whose window rate exceeds the cluster's capacity is a miss with shed > 0 whatever the duty cycle", () => {
    // 180,000 writes/s of 1 KB in the window: 12.9 nodes of demand on 12.
    fc.assert(
      fc.property(fc.constantFrom(60, 120, 300), fc.constantFrom(900, 3600, 7200), (windowS, everyS) => {
        const scenario = cyclicJob((180000 * windowS) / everyS, {
          kind: "burst",
          every: everyS,
          window: windowS,
        });
        const { summary } = simulateScenario(scenario).designs[0]!;
        expect(summary.guidance.meets).toBe(false);
        expect(summary.steadyState.shedWriteShare).toBeGreaterThan(0);
        expect(summary.steadyState.averageNodeCpu).toBeGreaterThan(1);
        // Saturated nodes queue writes up to the queue bound before shedding: the tail reaches it.
        expect(summary.steadyState.writeP99Ms).toBeGreaterThanOrEqual(MODEL_CONSTANTS.queueBoundMs.value);
        expect(summary.guidance.nodesNeeded.total!).toBeGreaterThan(12);
        expect(summary.cycle!.autoscaler.followsPeak).toBe(false);
      }),
      { numRuns: 4 },
    );
  });

  it("gives a diurnal load the same verdict and node count from any start in its day", () => {
    const diurnal = { kind: "diurnal", amplitude: 0.8, peakHour: 14 };
    const judge = (start: string) => simulateScenario(cyclicJob(100000, diurnal, start)).designs[0]!.summary;
    const midnight = judge("2026-01-01T00:00:00Z");
    // At the 14:00 peak, 180,000 writes/s of 1 KB need 12.9 nodes: 12 miss, whatever the start.
    expect(midnight.guidance.meets).toBe(false);
    for (const start of ["2026-01-01T13:30:00Z", "2026-01-01T07:17:00Z", "2026-01-01T21:45:30Z"]) {
      const shifted = judge(start);
      expect(shifted.guidance.meets, start).toBe(midnight.guidance.meets);
      expect(shifted.guidance.nodesNeeded, start).toEqual(midnight.guidance.nodesNeeded);
      expect(shifted.steadyState.averageNodeCpu, start).toBeCloseTo(midnight.steadyState.averageNodeCpu, 6);
    }
  });

  it("reports the autoscaler's node range: min ≤ max, the max covers the peak at its target, the min the trough", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.1, max: 1, noNaN: true }),
        fc.double({ min: 0.1, max: 0.8, noNaN: true }),
        (amplitude, cpuTarget) => {
          const scenario = cyclicJob(60000, { kind: "diurnal", amplitude, peakHour: 9 });
          const { summary, nodes } = simulateScenario(
            { ...scenario, cluster: { ...scenario.cluster, autoscaling: { cpuTarget } } },
            { durationS: 600 },
          ).designs[0]!;
          const { averageNodeCpu, autoscaler } = summary.cycle!;
          expect(averageNodeCpu.trough).toBeLessThan(averageNodeCpu.peak);
          expect(autoscaler.minNodes).toBeLessThanOrEqual(autoscaler.maxNodes);
          expect(autoscaler.maxNodes * cpuTarget).toBeGreaterThanOrEqual(averageNodeCpu.peak * nodes - 1e-9);
          expect((autoscaler.minNodes - 1) * cpuTarget).toBeLessThan(averageNodeCpu.trough * nodes + 1e-9);
        },
      ),
      { numRuns: 4 },
    );
  });
});

describe("the table that exists", () => {
  const current = { name: "current", schema: deviceKey };
  const short = { duration: "2m", cluster: { nodes: 4 } };

  it("resizing the existing table is warm from the first minute and never starts hotter than the same table on fewer nodes", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 6 }), fc.integer({ min: 1, max: 12 }), (nodes, added) => {
        const [fewer, more] = simulateScenario(
          fleet(
            [
              { ...current, nodes },
              { name: "resized", schema: deviceKey, nodes: nodes + added },
            ],
            short,
          ),
        ).designs;
        expect(more!.table).toBe("existing");
        expect(more!.summary.maxOverMedian.first).toBeLessThanOrEqual(SETTLED_RATIO);
        expect(more!.summary.hottestNodeCpu.first).toBeLessThanOrEqual(fewer!.summary.hottestNodeCpu.first);
      }),
      { numRuns: 6 },
    );
  });

  it("a key change starts as a new table: an unsalted re-key starts on one node", () => {
    const [, rekeyed] = simulateScenario(
      fleet(
        [
          { ...current, schema: saltedDeviceKey(8) },
          { name: "unsalted", schema: deviceKey },
        ],
        short,
      ),
    ).designs;
    expect(rekeyed!.table).toBe("new");
    expect(rekeyed!.timeline[0]!.nodeCpu.filter((cpu) => cpu > 0)).toHaveLength(1);
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { simulateSensitivity } from "../results/sensitivity.js";
import { simulateScenario } from "../results/simulate.js";
import { MIN_SPU_SECONDS_PER_REQUEST, SPUS_PER_NODE } from "../scenario/data-boost-limits.js";
import { validateScenario } from "../scenario/scenario.js";
import { deviceKey, saltedDeviceKey } from "../scenario/schemas.fixture.js";
import { dataBoostRead } from "./data-boost.js";
import { resolveModel } from "./model.js";

interface Shape {
  buckets: number;
  entities: number;
  writesPerS: number;
  rowBytes: number;
  windowH: number;
  scansPerS: number;
  nodes: number;
}

/** A device workload with one scan pattern: on Data Boost, on the cluster, or absent. */
function scenario(shape: Shape, scan: "boosted" | "cluster" | "none") {
  const reads =
    scan === "none"
      ? []
      : [
          {
            name: "dashboard",
            kind: "scan",
            group: "devices",
            window: `${shape.windowH}h`,
            perS: shape.scansPerS,
            ...(scan === "boosted" ? { dataBoost: true } : {}),
          },
        ];
  return validateScenario({
    name: "data-boost-property",
    duration: "5m",
    step: "5s",
    sample: "1m",
    cluster: { nodes: shape.nodes },
    workload: {
      rowBytes: shape.rowBytes,
      groups: [
        {
          name: "devices",
          entities: shape.entities,
          fields: { deviceID: "{hex8:i}" },
          writesPerS: shape.writesPerS,
        },
      ],
      reads,
    },
    designs: [
      {
        name: "design",
        table: "existing",
        schema: shape.buckets === 1 ? deviceKey : saltedDeviceKey(shape.buckets),
      },
    ],
  });
}

const shapes = fc.record({
  buckets: fc.constantFrom(1, 4, 16),
  entities: fc.integer({ min: 100, max: 50_000 }),
  writesPerS: fc.integer({ min: 100, max: 60_000 }),
  rowBytes: fc.integer({ min: 64, max: 4096 }),
  windowH: fc.integer({ min: 1, max: 24 * 30 }),
  scansPerS: fc.double({ min: 0.01, max: 20, noNaN: true }),
  nodes: fc.integer({ min: 1, max: 12 }),
});

const cpuSeries = (result: ReturnType<typeof simulateScenario>) =>
  result.designs[0]!.timeline.map((point) => point.nodeCpu);

describe("Data Boost scans", () => {
  it("add no cluster CPU: the run is the run without the scan, step for step", () => {
    fc.assert(
      fc.property(shapes, (shape) => {
        const boosted = simulateScenario(scenario(shape, "boosted"));
        const without = simulateScenario(scenario(shape, "none"));
        expect(cpuSeries(boosted)).toEqual(cpuSeries(without));
        expect(boosted.designs[0]!.summary.reads).toEqual([]);
        const demand = boosted.designs[0]!.summary.dataBoostReads![0]!;
        // The work is still done, by serverless compute: the node-seconds in SPUs, each request at least the minimum.
        expect(demand.spuSecondsPerRead).toBeGreaterThanOrEqual(demand.nodeSecondsPerRead * SPUS_PER_NODE);
        expect(demand.spuSecondsPerRead).toBeGreaterThanOrEqual(demand.fanout * MIN_SPU_SECONDS_PER_REQUEST);
        // On the cluster the same scan costs CPU: never less than without it.
        const onCluster = simulateScenario(scenario(shape, "cluster")).designs[0]!.summary.averageNodeCpu
          .mean;
        expect(onCluster).toBeGreaterThanOrEqual(boosted.designs[0]!.summary.averageNodeCpu.mean);
      }),
      { numRuns: 8 },
    );
  }, 240_000);

  it("add no cluster CPU at either end of the model's constants", () => {
    const shape: Shape = {
      buckets: 16,
      entities: 5000,
      writesPerS: 20_000,
      rowBytes: 256,
      windowH: 720,
      scansPerS: 0.1,
      nodes: 4,
    };
    const boosted = simulateSensitivity(scenario(shape, "boosted"));
    const without = simulateSensitivity(scenario(shape, "none"));
    expect(boosted.designs[0]!.averageNodeCpu).toEqual(without.designs[0]!.averageNodeCpu);
  }, 120_000);

  it("bill what the cluster would have spent: one node-second is 1,000 SPU-seconds", () => {
    const model = resolveModel(
      scenario(
        { buckets: 1, entities: 1, writesPerS: 1, rowBytes: 256, windowH: 1, scansPerS: 1, nodes: 1 },
        "none",
      ),
      { name: "d", schema: deviceKey },
      "default",
    ).cost;
    // One 30-day scan of a device writing 1.24 rows/s: 3,214,080 rows of 256 B over 64 ranges.
    const read = dataBoostRead(
      { name: "dashboard", perS: 0.1, fanout: 64, rowsReadPerRead: 3_214_080, rowBytes: 256 },
      model,
    );
    expect(read.nodeSecondsPerRead).toBeCloseTo(9.352, 2);
    expect(read.spuSecondsPerRead).toBeCloseTo(9352, -1);
    // A tiny scan is billed the 60 SPU-second minimum per request.
    const tiny = dataBoostRead(
      { name: "tiny", perS: 1, fanout: 4, rowsReadPerRead: 4, rowBytes: 256 },
      model,
    );
    expect(tiny.spuSecondsPerRead).toBe(4 * MIN_SPU_SECONDS_PER_REQUEST);
  });
});

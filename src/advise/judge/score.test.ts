import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SchemaSpec } from "../../keys/types.js";
import { validateScenario } from "../../sim/scenario/scenario.js";
import { ROW_HARD_LIMIT_BYTES, ROW_RECOMMENDED_BYTES } from "../../sim/workload/row-size.js";
import { adviseScenario } from "./advise.js";
import { capacityBound } from "./recommend.js";
import { DEFAULT_ADVICE_TARGETS, type DesignScores, failedTargets } from "./score.js";

/** A design that meets every CPU and storage target, with the largest row given. */
const scores = (rowBytes: number): DesignScores => ({
  nodes: 3,
  nodeScalingFactor: 1,
  costPerHour: 1.95,
  buckets: 1,
  hottestCpu: 0.3,
  averageCpu: 0.2,
  maxOverMedian: 1.2,
  peakHottestCpu: 0.4,
  writeP99Ms: 5,
  writeShedShare: 0,
  bytesPerS: 1024,
  storedBytes: 1e9,
  storagePerNode: 0.01,
  reads: [],
  clientCores: { cores: 0, reads: [], cpuMsPerCall: 0.2, cpuUsPerRow: 10 },
  keyBytesPerRow: 20,
  saltBytesPerRow: 0,
  rowsPerDay: 86400,
  keyOverheadBytesPerDay: 0,
  nodesNeeded: 1,
  largestRow: {
    bytes: rowBytes,
    group: "devices",
    limit: ROW_RECOMMENDED_BYTES,
    hardLimit: ROW_HARD_LIMIT_BYTES,
    ok: rowBytes <= ROW_RECOMMENDED_BYTES,
  },
});

describe("the row limit in the advisor's targets", () => {
  it("fails a design exactly when one row holds more than Google's recommended 100 MB", () => {
    fc.assert(
      fc.property(fc.double({ min: 1, max: 1e12, noNaN: true }), (bytes) => {
        const targets = failedTargets(scores(bytes), DEFAULT_ADVICE_TARGETS).map((failure) => failure.target);
        expect(targets).toEqual(bytes > ROW_RECOMMENDED_BYTES ? ["row"] : []);
      }),
    );
  });

  it("does not recommend a design whose one row is too large, nor salting for one hot row", () => {
    const deviceOnly: SchemaSpec = {
      version: 1,
      name: "device",
      layout: "text",
      segments: [{ field: "deviceID", codec: { type: "string" } }],
    };
    // One key takes every write, 300/s of 1 KB kept a week: a 185 GB row, at a few percent of one node.
    const oneRow = validateScenario({
      name: "one-row",
      duration: "30m",
      cluster: { nodes: 3 },
      workload: {
        rowBytes: 1024,
        retention: "7d",
        groups: [{ name: "devices", entities: 1, fields: { deviceID: "the-one" }, writesPerS: 300 }],
      },
      designs: [{ name: "as-is", schema: deviceOnly, table: "existing" }],
    });
    const advice = adviseScenario(oneRow, { durationS: 1800 });
    const simulated = advice.candidates.filter((each) => each.kind === "judged");
    expect(simulated.filter((each) => each.scores.buckets > 1).length).toBeGreaterThan(0);
    for (const each of simulated) {
      expect(each.scores.largestRow!.ok).toBe(false);
      expect(each.failures.map((failure) => failure.target)).toContain("row");
      // More nodes do not split a row.
      expect(capacityBound(each)).toBe(false);
    }
    expect(advice.recommended).toBeUndefined();
    expect(advice.needsMoreNodes).toBe(false);
  }, 120_000);
});

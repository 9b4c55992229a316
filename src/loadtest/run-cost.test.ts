import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseScenario } from "../sim/scenario/scenario.js";
import { runCost } from "./run-cost.js";
import { scaleScenario } from "./scaled-scenario.js";

const fleet = parseScenario(readFileSync("examples/fleet-hotspot.yaml", "utf8"));

describe("a load test's expected cost", () => {
  it("is the nodes' hours at the node price plus the written bytes kept over the run", () => {
    const scaled = scaleScenario(fleet, "as-is", 0.1, 3);
    const cost = runCost(scaled, 3 * 3600);
    expect(cost.nodeHours).toBe(9);
    expect(cost.nodeDollars).toBeCloseTo(9 * 0.65, 6);
    // 18,000 rows/s × 256 B × 3 h, half of it on average, at $0.17 per GiB-month for 3 of 730 hours.
    const bytes = 18_000 * 256 * 3 * 3600;
    expect(cost.writtenBytes).toBeCloseTo(bytes, -3);
    expect(cost.storageDollars).toBeCloseTo(((bytes / 2 / 2 ** 30) * 0.17 * 3) / 730, 6);
  });

  it("twice as long: twice the node-hours, four times the storage (twice the bytes kept twice as long)", () => {
    const scaled = scaleScenario(fleet, "salt-16-by-deviceID+ts", 0.01, 1);
    const one = runCost(scaled, 3600);
    const two = runCost(scaled, 7200);
    expect(two.nodeDollars).toBeCloseTo(2 * one.nodeDollars, 9);
    expect(two.storageDollars).toBeCloseTo(4 * one.storageDollars, 9);
  });
});

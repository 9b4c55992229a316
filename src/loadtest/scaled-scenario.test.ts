import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseScenario } from "../sim/scenario/scenario.js";
import { checkDrivable, entityShare, ScaleTooLargeError, scaleScenario } from "./scaled-scenario.js";

const fleet = parseScenario(readFileSync("examples/fleet-hotspot.yaml", "utf8"));

describe("the scaled scenario a load test drives", () => {
  it("scales entities, write and read rates, on the test instance's nodes", () => {
    const { scenario, design } = scaleScenario(fleet, "as-is", 0.01, 2);
    expect(scenario.workload.groups.map((g) => [g.entities, g.writesPerS])).toEqual([
      [900, 1116],
      [23_100, 684],
    ]);
    expect(scenario.workload.reads.map((r) => r.perS)).toEqual([80, 0.001]);
    expect(design.nodes).toBe(2);
    expect(scenario.designs).toHaveLength(1);
  });

  it("names the designs when the design does not exist", () => {
    expect(() => scaleScenario(fleet, "nope", 0.01, 1)).toThrow(/design "nope".*designs: as-is/);
  });

  it("refuses a scale outside (0, 1]", () => {
    for (const value of [0, 2, Number.NaN]) {
      expect(() => scaleScenario(fleet, "as-is", value, 1)).toThrow(
        expect.objectContaining({ name: "ScaleOutOfRangeError", field: "--scale", value, allowed: "(0, 1]" }),
      );
    }
  });

  it("refuses a scale the tasks cannot drive, saying how many tasks or what scale would", () => {
    const scaled = scaleScenario(fleet, "as-is", 0.5, 12);
    const error = (() => {
      try {
        checkDrivable(scaled, 3, 5000);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ScaleTooLargeError);
    expect((error as ScaleTooLargeError).peakOpsPerS).toBeCloseTo(94_000, 0);
    expect((error as Error).message).toMatch(/--tasks 19 or --scale 0\.08/);
    expect(checkDrivable(scaleScenario(fleet, "as-is", 0.001, 1), 3, 5000)).toBeCloseTo(188, 0);
  });

  it("deals every entity to exactly one task", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 50 }), (entities, count) => {
        let next = 0;
        for (let index = 0; index < count; index++) {
          const { from, to } = entityShare(entities, index, count);
          expect(from).toBe(next);
          expect(to).toBeGreaterThanOrEqual(from);
          next = to;
        }
        expect(next).toBe(entities);
      }),
    );
  });
});

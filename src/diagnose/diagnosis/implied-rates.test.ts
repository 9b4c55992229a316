import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MODEL_CONSTANTS } from "../../sim/cluster/model-constants.js";
import { impliedRates } from "./implied-rates.js";

const range = (cpu: number) => ({
  startKey: Buffer.from("a"),
  endKey: Buffer.from("b"),
  maxCpuPercent: cpu,
  windows: [],
});

describe("impliedRates", () => {
  it("is each hot range's share of a node times a node's write capacity", () => {
    expect(impliedRates([range(50), range(100)], "ssd")).toEqual({
      writesPerS: Math.round(1.5 * MODEL_CONSTANTS.ssdWritesPerS.value),
      reads: [],
    });
    expect(impliedRates([range(100)], "hdd")!.writesPerS).toBe(MODEL_CONSTANTS.hddWritesPerS.value);
  });

  it("implies nothing without heat", () => {
    expect(impliedRates([], "ssd")).toBeUndefined();
  });

  it("grows with every hot range's CPU", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 1, max: 100 }),
        (cpus, extra) => {
          const base = impliedRates(cpus.map(range), "ssd")!.writesPerS;
          expect(impliedRates([...cpus, extra].map(range), "ssd")!.writesPerS).toBeGreaterThan(base);
        },
      ),
    );
  });
});

import { describe, expect, it } from "vitest";
import { concentrationShift, prefixShares } from "./concentration-shift.js";

describe("concentrationShift", () => {
  it("is 0 for the same mix and 1 for disjoint prefixes", () => {
    const mix = new Map([
      ["a", 0.5],
      ["b", 0.5],
    ]);
    expect(concentrationShift(mix, mix)).toBe(0);
    expect(concentrationShift(mix, new Map([["c", 1]]))).toBe(1);
  });

  it("sees one prefix taking over (the fleet incident's 62 % customer)", () => {
    const before = new Map([
      ["acme", 0.1],
      ["beta", 0.1],
    ]);
    const after = new Map([
      ["acme", 0.62],
      ["beta", 0.05],
    ]);
    expect(concentrationShift(before, after)).toBeCloseTo(0.52);
  });

  it("builds shares from counts, the rest being other", () => {
    expect(prefixShares([{ item: "a", count: 30 }], 100)).toEqual(new Map([["a", 0.3]]));
    expect(prefixShares([{ item: "a", count: 3 }], 0).size).toBe(0);
  });
});

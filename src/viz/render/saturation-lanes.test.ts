import { describe, expect, it } from "vitest";
import { laneColor, saturationLanes } from "./saturation-lanes.js";

describe("saturation lanes", () => {
  // 3 rows × 4 columns; row 1 is saturated in columns 2..3, row 2 in every column.
  const hot = "000000111111";
  const keyShare = [0.5, 0.25, 0.25];

  it("gives each row its share of the time and each column its share of the key space", () => {
    expect(saturationLanes(hot, keyShare, 4, { r0: 0, r1: 3, c0: 0, c1: 4 })).toEqual({
      byRow: [0, 0.5, 1],
      byColumn: [0.25, 0.25, 0.5, 0.5],
    });
  });

  it("measures within a zoomed view", () => {
    expect(
      saturationLanes([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1], keyShare, 4, { r0: 1, r1: 3, c0: 2, c1: 4 }),
    ).toEqual({
      byRow: [1, 1],
      byColumn: [1, 1],
    });
  });

  it("runs from dark grey to cyan, any share visible", () => {
    expect(laneColor(0)).toEqual([44, 44, 52]);
    expect(laneColor(1)).toEqual([0, 230, 255]);
    expect(laneColor(0.01)).not.toEqual(laneColor(0));
  });
});

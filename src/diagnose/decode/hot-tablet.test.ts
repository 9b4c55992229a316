import { describe, expect, it } from "vitest";
import { hotTablet } from "./fixtures.testsuite.js";
import { hotRanges, inHotRange, tableIdOf, tabletsOfOtherTables } from "./hot-tablet.js";

const key = (text: string) => Buffer.from(text);

describe("hot ranges", () => {
  it("folds the windows of one key range into one range, hottest first, with its recurrences", () => {
    const ranges = hotRanges([
      hotTablet(key("a"), key("c"), 40, 2),
      hotTablet(key("m"), key("p"), 90, 1),
      hotTablet(key("a"), key("c"), 70, 0),
    ]);
    expect(
      ranges.map((range) => [range.startKey.toString(), range.maxCpuPercent, range.windows.length]),
    ).toEqual([
      ["m", 90, 1],
      ["a", 70, 2],
    ]);
    expect(ranges[1]!.windows.map((window) => window.cpuPercent)).toEqual([70, 40]);
  });

  it("includes both ends, and an empty end reaches the table's end", () => {
    const range = { startKey: key("b"), endKey: key("d") };
    expect([key("a"), key("b"), key("d"), key("d0")].map((k) => inHotRange(range, k))).toEqual([
      false,
      true,
      true,
      false,
    ]);
    expect(inHotRange({ startKey: key("b"), endKey: Buffer.alloc(0) }, key("zzz"))).toBe(true);
  });

  it("takes the table id from a table's resource name", () => {
    expect(tableIdOf("projects/p/instances/i/tables/metrics")).toBe("metrics");
    expect(tableIdOf("metrics")).toBe("metrics");
  });

  it("names the other tables a recorded answer holds tablets of, busiest first", () => {
    const answer = [
      hotTablet(key("a"), key("b"), 90, 0, "metrics"),
      hotTablet(key("a"), key("b"), 80, 0, "orders"),
      hotTablet(key("c"), key("d"), 70, 1, "orders"),
      hotTablet(key("e"), key("f"), 60, 0, "users"),
    ];
    expect(tabletsOfOtherTables(answer, "metrics")).toEqual([
      { table: "orders", tablets: 2 },
      { table: "users", tablets: 1 },
    ]);
    // An answer for another table only: every tablet is named, none read.
    expect(tabletsOfOtherTables(answer, "events").map((other) => other.tablets)).toEqual([2, 1, 1]);
  });
});

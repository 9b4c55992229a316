import { describe, expect, it } from "vitest";
import { fleetKeys } from "./fixtures.testsuite.js";
import { detectSeparator, parseKeyLines, splitSample } from "./key-sample.js";

describe("key samples", () => {
  it("reads text lines and skips blank ones", () => {
    expect(parseKeyLines("a#1\r\n\nb#2\n", "text")).toEqual(["a#1", "b#2"]);
  });

  it("decodes hex lines and names a bad one", () => {
    expect(parseKeyLines("6123\n", "hex")).toEqual(["a#"]);
    expect(() => parseKeyLines("61\nxyz\n", "hex")).toThrow(/line 2: "xyz" is not hex/);
  });

  it("refuses an empty sample", () => {
    expect(() => parseKeyLines("\n\n", "text")).toThrow(/no keys/);
  });

  it("finds the separator every key shares, not one only some ids contain", () => {
    expect(detectSeparator(fleetKeys(200))).toBe("#");
    expect(
      detectSeparator(["farm_0042_sensor_12_20240315080000", "farm_0043_sensor_07_20240315080500"]),
    ).toBe("_");
    expect(detectSeparator(["txn0001", "txn0002"])).toBeUndefined();
  });

  it("splits separator-less keys of one prefix and digits (seed 000's txn00001)", () => {
    expect(splitSample(["txn00001", "txn00002"]).rows).toEqual([
      ["txn", "00001"],
      ["txn", "00002"],
    ]);
    expect(splitSample(["txn00001", "abc00002"]).rows).toEqual([["txn00001"], ["abc00002"]]);
  });

  it("keeps the keys with the usual number of components", () => {
    const split = splitSample(["a#1", "b#2", "c#3#x", "d#4", "e#5", "f#6", "g#7", "h#8", "i#9", "j#10"]);
    expect(split.separator).toBe("#");
    expect(split.rows).toHaveLength(9);
    expect(split.skipped).toBe(1);
  });
});

import { describe, expect, it } from "vitest";
import type { HeatRow } from "../matrix/heat-matrix.js";
import { keyRangeName, wholeWords } from "./key-range-name.js";

/** Rows starting at `starts` (the first must be ""), each holding an equal share of the key space. */
function rowsAt(starts: readonly (string | Buffer)[]): HeatRow[] {
  const keys = starts.map((start) => (typeof start === "string" ? Buffer.from(start) : start));
  return keys.map((start, index) => ({
    start,
    end: keys[index + 1] ?? null,
    labels: [],
    keyShare: 1 / keys.length,
  }));
}

describe("keyRangeName", () => {
  const fleet = rowsAt([
    "",
    "0f4f1790#",
    "7c0d9a31#",
    "ace9ef95#",
    ...Array.from({ length: 12 }, (_, index) => `acme-${String(index * 7500).padStart(6, "0")}#`),
    "b1599e71#",
    "d0d59d62#",
  ]);

  it("names a band by its keys' common prefix, cut back to a whole word", () => {
    // Rows 3..15: the first row starts at a hashed id before acme's first key; acme-000000..082500 follow.
    expect(keyRangeName(fleet, 3, 15)).toBe("acme-*");
    expect(keyRangeName(fleet, 4, 15)).toBe("acme-*");
  });

  it("gives the exact range when the prefix would claim much more than the band", () => {
    // Half of acme's rows: `acme-*` would claim the other half too; `acme-0*` likewise.
    expect(keyRangeName(fleet, 4, 9)).toBe("[acme-000000#, acme-045000#)");
    // One row of many `d…` keys.
    const devices = rowsAt([
      "",
      ...Array.from({ length: 23 }, (_, index) => `dev${String(index + 1).padStart(3, "0")}`),
    ]);
    expect(keyRangeName(devices, 9, 9)).toBe("[dev009, dev010)");
  });

  it("keeps the longer exact prefix when only it fits, and salt buckets in the name", () => {
    const tenants = rowsAt([
      "",
      "03#fleet-1#",
      "03#fleet-7#a",
      "03#fleet-7#b",
      "03#fleet-7#c",
      "03#fleet-8#",
      "04#",
    ]);
    expect(keyRangeName(tenants, 2, 4)).toBe("03#fleet-7#*");
    // `t08#e0008*` would claim e00084xx..e00089xx too; whole words (`t08#*`) far more.
    const entities = rowsAt([
      "",
      "t08#e0008000",
      "t08#e0008200",
      "t08#e0008400",
      "t08#e0008600",
      "t08#e0008800",
      "t09#",
    ]);
    expect(keyRangeName(entities, 1, 2)).toBe("[t08#e0008000, t08#e0008400)");
  });

  it("names binary prefixes in hex, the whole table as such, and open ends in words", () => {
    const binary = rowsAt([
      "",
      Buffer.from([0x80]),
      Buffer.from([0x81, 0x00]),
      Buffer.from([0x81, 0x01]),
      Buffer.from([0x82]),
    ]);
    expect(keyRangeName(binary, 2, 3)).toBe("hex:81*");
    expect(keyRangeName(fleet, 0, fleet.length - 1)).toBe("the whole key space");
    expect(keyRangeName(fleet, 0, 1)).toBe("[start of table, 7c0d9a31#)");
    expect(keyRangeName(fleet, 16, 17)).toBe("[b1599e71#, end of table)");
  });

  it("cuts prefixes back to whole words", () => {
    expect(wholeWords(Buffer.from("acme-0")).toString()).toBe("acme-");
    expect(wholeWords(Buffer.from("03#fleet-7#")).toString()).toBe("03#fleet-7#");
    expect(wholeWords(Buffer.from("dev0")).toString()).toBe("");
  });
});

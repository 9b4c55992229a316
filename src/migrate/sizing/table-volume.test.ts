import { describe, expect, it } from "vitest";
import { volumeFromSamples } from "./table-volume.js";

const sample = (key: string, offsetBytes: number) => ({ key: Buffer.from(key), offsetBytes });

describe("volumeFromSamples", () => {
  it("takes the table's bytes from Bigtable's closing empty-key sample, and rows from the bytes a row stores", () => {
    expect(volumeFromSamples([sample("b", 100), sample("m", 700), sample("", 1_000)], 10)).toEqual({
      rows: 100,
      storedBytes: 1_000,
      basis: "sample-row-keys",
    });
  });

  it("without the closing sample (the emulator), the last offset is a floor, and says so", () => {
    expect(volumeFromSamples([sample("m", 700), sample("b", 100)], 7)).toEqual({
      rows: 100,
      storedBytes: 700,
      basis: "sample-row-keys-floor",
    });
    expect(volumeFromSamples([], 7)).toEqual({ rows: 0, storedBytes: 0, basis: "sample-row-keys-floor" });
  });

  it("refuses a row size that is not positive", () => {
    expect(() => volumeFromSamples([], 0)).toThrow(
      expect.objectContaining({ name: "MigrateOptionError", field: "rowBytes", value: 0 }),
    );
  });
});

import { describe, expect, it } from "vitest";
import { fleetKeys } from "./fixtures.testsuite.js";
import { detectKeySeparator, parseKeyLines, splitKeySample } from "./key-sample.js";

describe("key samples", () => {
  it("reads text lines and skips blank ones", () => {
    expect(parseKeyLines("a#1\r\n\nb#2\n", "text")).toEqual(["a#1", "b#2"]);
  });

  it("decodes hex lines and names a bad one", () => {
    expect(parseKeyLines("6123\n", "hex")).toEqual(["a#"]);
    expect(() => parseKeyLines("61\nxyz\n", "hex")).toThrow(
      expect.objectContaining({ name: "KeySampleError", problem: "unreadable", line: 2 }),
    );
  });

  it("refuses an empty sample", () => {
    expect(() => parseKeyLines("\n\n", "text")).toThrow(
      expect.objectContaining({ name: "KeySampleError", problem: "empty" }),
    );
    expect(() => parseKeyLines("a#1\nb\ufffd#2\n", "text")).toThrow(
      expect.objectContaining({ name: "KeySampleError", problem: "unreadable", line: 2, character: 2 }),
    );
    expect(() => parseKeyLines("a\u0000b\n", "text")).toThrow(/line 1: character 2/);
    expect(parseKeyLines("a\tb\n", "text")).toEqual(["a\tb"]);
  });

  it("finds the separator every key shares, not one only some ids contain", () => {
    expect(detectKeySeparator(fleetKeys(200))).toBe("#");
    expect(
      detectKeySeparator(["farm_0042_sensor_12_20240315080000", "farm_0043_sensor_07_20240315080500"]),
    ).toBe("_");
    expect(detectKeySeparator(["txn0001", "txn0002"])).toBeUndefined();
  });

  it("splits a word and its digits (the textbook keys' txn00001, sensor-0042), marking the digits as glued", () => {
    const txn = splitKeySample(["txn00001", "txn00002"]);
    expect(txn.rows).toEqual([
      ["txn", "00001"],
      ["txn", "00002"],
    ]);
    expect(txn.glued).toEqual([1]);
    expect(splitKeySample(["txn00001", "abc00002"]).rows).toEqual([["txn00001"], ["abc00002"]]);
    expect(splitKeySample(["1#sensor-0042", "2#sensor-0007"]).rows).toEqual([
      ["1", "sensor-", "0042"],
      ["2", "sensor-", "0007"],
    ]);
  });

  it("keeps UUIDs and ISO times whole though they hold separator characters", () => {
    const sample = splitKeySample([
      "2025-11-24T16:00:00.123Z-550e8400-e29b-41d4-a716-446655440000",
      "2025-11-24T16:00:01.456Z-6ba7b810-9dad-11d1-80b4-00c04fd430c8",
    ]);
    expect(sample.separator).toBe("-");
    expect(sample.rows[0]).toEqual(["2025-11-24T16:00:00.123Z", "550e8400-e29b-41d4-a716-446655440000"]);
  });

  it("splits paths of varying depth at the first separator, the rest in the last component", () => {
    const sample = splitKeySample(["com.a.www/x", "com.b.www/x/y", "org.c.www/x/y/z", "com.d.www/q"]);
    expect(sample.separator).toBe("/");
    expect(sample.rows).toEqual([
      ["com.a.www", "x"],
      ["com.b.www", "x/y"],
      ["org.c.www", "x/y/z"],
      ["com.d.www", "q"],
    ]);
  });

  it("peels a binary key's salt byte and trailing 8-byte time, then splits the rest on NUL", () => {
    const time = Buffer.alloc(8);
    time.writeBigUInt64BE(1_764_000_000_000n + 2n ** 63n);
    const keys = Array.from({ length: 64 }, (_, k) =>
      Buffer.concat([Buffer.of(k % 4), Buffer.from(`d${k}`), Buffer.of(0), time]).toString("latin1"),
    );
    const sample = splitKeySample(keys);
    expect(sample.binary).toBe(true);
    expect(sample.saltByte?.buckets).toBe(4);
    expect(sample.rows[5]).toEqual(["\u0001", "d", "5", time.toString("latin1")]);
  });

  it("keeps the keys with the usual number of components", () => {
    const split = splitKeySample(["a#1", "b#2", "c#3#x", "d#4", "e#5", "f#6", "g#7", "h#8", "i#9", "j#10"]);
    expect(split.separator).toBe("#");
    expect(split.rows).toHaveLength(9);
    expect(split.skipped).toBe(1);
  });
});

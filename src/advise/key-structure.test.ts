import { describe, expect, it } from "vitest";
import { fleetKeys, postKeys, userKeys } from "./fixtures.testsuite.js";
import { splitSample } from "./key-sample.js";
import { inferKeyStructure, looksHashed, saltPrefixBuckets, timestampShape } from "./key-structure.js";

const structureOf = (keys: string[]) => inferKeyStructure(splitSample(keys));

describe("timestamps", () => {
  it("reads epoch seconds, milliseconds and microseconds", () => {
    expect(timestampShape(["1764000000", "1764000005"])).toEqual({
      unit: "s",
      reverse: false,
      shape: "epoch",
    });
    expect(timestampShape(["1764000000000"])).toMatchObject({ unit: "ms", reverse: false });
    expect(timestampShape(["1764000000000000"])).toMatchObject({ unit: "us", reverse: false });
  });

  it("reads reversed times: 9-complement and Long.MAX_VALUE − ms", () => {
    expect(timestampShape([String(9_999_999_999_999 - 1_764_000_000_000)])).toMatchObject({
      unit: "ms",
      reverse: true,
    });
    expect(timestampShape([String(9_223_372_036_854_775_807n - 1_764_000_000_000n)])).toMatchObject({
      unit: "ms",
      reverse: true,
    });
  });

  it("reads YYYYMMDDHHMMSS digits and rejects numbers that are no time", () => {
    expect(timestampShape(["20240315080000", "20240315080500"])).toEqual({
      unit: "s",
      reverse: false,
      shape: "date",
    });
    expect(timestampShape(["12345", "67890"])).toBeUndefined();
    expect(timestampShape(["20241315080000"])).toBeUndefined();
  });
});

describe("key structure", () => {
  it("sees a user id before the time: writes spread, nothing sequential", () => {
    const structure = structureOf(userKeys(500));
    expect(structure.components.map((c) => [c.name, c.kind])).toEqual([
      ["id", "high-cardinality"],
      ["ts", "timestamp"],
    ]);
    expect(structure.sequential).toBeUndefined();
    expect(structure.explanation).toMatch(/spread over the values of id/);
  });

  it("finds the timestamp that makes writes sequential behind a constant", () => {
    const structure = structureOf(postKeys(500));
    expect(structure.components.map((c) => c.kind)).toEqual(["constant", "timestamp", "high-cardinality"]);
    expect(structure.sequential?.name).toBe("ts");
    expect(structure.explanation).toMatch(/Writes are sequential: ts/);
  });

  it("reads seed 003's reversed device key", () => {
    const ts = structureOf(fleetKeys(500)).components[1]!;
    expect(ts).toMatchObject({ kind: "timestamp", timestamp: { unit: "ms", reverse: true } });
  });

  it("names a component after the constant word before it, and finds sequences and low cardinality", () => {
    const keys = Array.from(
      { length: 400 },
      (_, k) => `farm_${String((k * 13) % 31).padStart(4, "0")}_sensor_${k % 7}_x${1000 + k}`,
    );
    const structure = structureOf(keys);
    expect(structure.components.map((c) => [c.name, c.kind])).toEqual([
      ["", "constant"],
      ["farm", "low-cardinality"],
      ["", "constant"],
      ["sensor", "low-cardinality"],
      ["id", "high-cardinality"],
    ]);
    const ids = structureOf(Array.from({ length: 400 }, (_, k) => `txn#${String(k + 1).padStart(10, "0")}`));
    expect(ids.components[1]!.kind).toBe("sequence");
    expect(ids.sequential?.name).toBe("seq");
  });

  it("recognises hashed hex", () => {
    const hashes = userKeys(300).map((key) => key.slice(1, 9));
    expect(looksHashed(hashes)).toBe(true);
    expect(
      looksHashed([
        "00000001",
        "00000002",
        "00000003",
        "00000004",
        "00000005",
        "00000006",
        "00000007",
        "00000008",
      ]),
    ).toBe(false);
  });

  it("recognises a salt already in the key (seed 000's 061_player_…) and keeps it in the model", () => {
    const keys = Array.from(
      { length: 600 },
      (_, k) =>
        `${String((k * 37) % 100).padStart(3, "0")}_player_${100000 + ((k * 7919) % 800000)}_20240315${String(140000 + (k % 60)).padStart(6, "0")}`,
    );
    const structure = structureOf(keys);
    expect(structure.components[0]).toMatchObject({ kind: "hashed", name: "salt", saltBuckets: 100 });
    expect(
      saltPrefixBuckets(["001", "002", "001", "002", "003", "003", "001", "002", "003", "001", "002", "003"]),
    ).toBeUndefined();
    expect(
      saltPrefixBuckets(["0", "1", "2", "3", "0", "1", "2", "3", "0", "1", "2", "3", "3", "2", "1", "0"]),
    ).toBe(4);
  });
});

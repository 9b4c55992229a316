import { describe, expect, it } from "vitest";
import * as keys from "./fixtures.testsuite.js";
import { parseKeyLines, splitKeySample } from "./key-sample.js";
import { inferKeyStructure, looksHashed, sequenceShape } from "./key-structure.js";

const structureOf = (sample: string[]) => inferKeyStructure(splitKeySample(sample));
const shape = (sample: string[]) => structureOf(sample).components.map((c) => [c.name, c.kind]);

describe("key structure", () => {
  it("sees a user id before the time: writes spread, nothing sequential", () => {
    const structure = structureOf(keys.userKeys(500));
    expect(shape(keys.userKeys(500))).toEqual([
      ["id", "high-cardinality"],
      ["ts", "timestamp"],
    ]);
    expect(structure.sequential).toBeUndefined();
    expect(structure.spreadBy).toEqual(["id"]);
  });

  it("finds the timestamp that makes writes sequential behind a constant", () => {
    const structure = structureOf(keys.postKeys(500));
    expect(structure.components.map((c) => c.kind)).toEqual([
      "constant",
      "timestamp",
      "constant",
      "high-cardinality",
    ]);
    expect(structure.sequential).toMatchObject({ name: "ts", kind: "timestamp", label: "epoch ms" });
    expect(structure.spreadBy).toEqual([]);
  });

  it("reads the fleet incident's reversed device key", () => {
    const ts = structureOf(keys.fleetKeys(500)).components[1]!;
    expect(ts).toMatchObject({ kind: "timestamp", time: { unit: "ms", reverse: true } });
  });

  it("names components after the word before them, and finds low cardinality", () => {
    const sample = Array.from(
      { length: 400 },
      (_, k) =>
        `farm_${String((k * 13) % 31).padStart(4, "0")}_sensor_${k % 7}_x${1000 + ((k * 7919) % 9000)}`,
    );
    expect(shape(sample)).toEqual([
      ["", "constant"],
      ["farm", "low-cardinality"],
      ["", "constant"],
      ["sensor", "low-cardinality"],
      ["", "constant"],
      ["id", "high-cardinality"],
    ]);
  });

  it("reads counters of any width, glued to their word or not, and Snowflake ids even out of order", () => {
    expect(shape(keys.counterKeys(400))).toEqual([
      ["", "constant"],
      ["seq", "sequence"],
    ]);
    const txn = structureOf(keys.counterKeys(400)).components[1]!;
    expect(txn).toMatchObject({ glued: true, sequence: { width: 5, max: 400n } });
    expect(structureOf(keys.counterKeys(400, "txn#", 10)).components[1]!.glued).toBeUndefined();
    expect(structureOf(keys.snowflakeKeys(400)).components[0]).toMatchObject({
      kind: "sequence",
      label: "Snowflake-style id (time in the top bits)",
    });
    // Random decimal ids are no sequence: they neither ascend nor sit in a narrow band.
    const random = keys.random(3);
    const ids = Array.from({ length: 400 }, () => String(Math.floor(random() * 1e9)).padStart(9, "0"));
    expect(sequenceShape(ids, new Set(ids).size, 0.5)).toBeUndefined();
  });

  it("reads ISO times, dates, hours and times of day", () => {
    expect(shape(keys.isoKeys(400))).toEqual([
      ["ts", "timestamp"],
      ["", "constant"],
      ["device", "high-cardinality"],
    ]);
    expect(shape(keys.dayCounterKeys(400))).toEqual([
      ["", "constant"],
      ["day", "time-bucket"],
      ["seq", "sequence"],
    ]);
    expect(shape(keys.patientKeys(400))).toEqual([
      ["", "constant"],
      ["patient", "high-cardinality"],
      ["day", "time-bucket"],
      ["ts", "timestamp"],
    ]);
    // The explanation's "day turns every day" comes from this component: a bucket a day wide.
    const day = structureOf(keys.dayRandomKeys(400)).components.find((c) => c.kind === "time-bucket");
    expect(day).toMatchObject({ name: "day", time: { granularityS: 86400 } });
  });

  it("reads generated ids: UUID v4 spreads, v1, v7 and ULID move with time", () => {
    expect(shape(keys.uuidV4Keys(400))).toEqual([["hash", "hashed"]]);
    for (const sample of [keys.uuidV1Keys(400), keys.uuidV7Keys(400), keys.ulidKeys(400)]) {
      const structure = structureOf(sample);
      expect(structure.components.map((c) => c.kind)).toEqual(["time-ordered-id"]);
      expect(structure.sequential?.name).toBe("id");
    }
  });

  it("keeps reverse-domain hosts whole and paths of any depth in one component", () => {
    const structure = structureOf(keys.reverseDomainKeys(400));
    expect(structure.separator).toBe("/");
    expect(structure.components[0]).toMatchObject({ name: "host", label: "reverse-domain host" });
    expect(structure.components[0]!.examples[0]).toMatch(/^[a-z]+\.site\d+\.www$/);
    expect(structure.skipped).toBe(0);
  });

  it("recognises salts already in the key: decimal, hex, and Phoenix's byte", () => {
    expect(structureOf(keys.decimalSaltedKeys(600)).components[0]).toMatchObject({
      kind: "salt",
      name: "salt",
      salt: { buckets: 100, format: "decimal" },
    });
    expect(structureOf(keys.hexSaltedKeys(400)).components[0]).toMatchObject({
      kind: "salt",
      salt: { buckets: 256, format: "hex" },
    });
    const phoenix = inferKeyStructure(
      splitKeySample(parseKeyLines(keys.phoenixSaltedHexLines(400).join("\n"), "hex")),
    );
    expect(phoenix.binary).toBe(true);
    expect(phoenix.components.map((c) => c.kind)).toEqual([
      "salt",
      "constant",
      "high-cardinality",
      "timestamp",
    ]);
    expect(phoenix.components[0]).toMatchObject({ salt: { format: "byte", buckets: 16, width: 1 } });
    expect(phoenix.components[3]).toMatchObject({ time: { unit: "ms", realCodec: { type: "int64" } } });
  });

  it("recognises hashed hex", () => {
    const hashes = keys.userKeys(300).map((key) => key.slice(1, 9));
    expect(looksHashed(hashes)).toBe(true);
    expect(looksHashed(Array.from({ length: 8 }, (_, k) => String(k + 1).padStart(8, "0")))).toBe(false);
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseSchema } from "../../keys/schema.js";
import { type DecodedHotRange, decodeHotRange } from "../decode/decoded-hot-range.js";
import { entityFields } from "../decode/entities.js";
import { hotTablet } from "../decode/fixtures.testsuite.js";
import { hotRanges } from "../decode/hot-tablet.js";
import {
  type ClassifyInput,
  classify as classifyWith,
  EVEN_MAX_OVER_MEDIAN,
  NARROW_MAX_ENTITIES,
} from "./classify.js";

const T0 = Date.parse("2026-11-30T00:00:00Z");

const classify = (input: Omit<ClassifyInput, "entity">) =>
  classifyWith({ ...input, entity: { fields: ["device"], leading: true } });

function range(
  start: string,
  end: string,
  cpu: number,
  sampledKeys: number,
  firstHour = 0,
  entities = sampledKeys,
): DecodedHotRange {
  return {
    startKey: Buffer.from(start),
    endKey: Buffer.from(end),
    start: { kind: "table-edge" },
    end: { kind: "table-edge" },
    singleKey: start !== "" && start === end,
    maxCpuPercent: cpu,
    windows: [
      {
        start: new Date(T0 + firstHour * 3_600_000),
        end: new Date(T0 + (firstHour + 1) * 3_600_000),
        cpuPercent: cpu,
      },
    ],
    sampledKeys,
    entities,
    buckets: [],
    fields: [],
  };
}

describe("classify", () => {
  it("no hot tablet: nothing to do", () => {
    expect(classify({ hotRanges: [], sequentialField: undefined, sampleKeys: 100 })).toMatchObject({
      kind: "no-hot-tablets",
      remedy: "nothing-to-do",
    });
  });

  it("a tablet of one key is one hot row: shard the row", () => {
    const diagnosis = classify({
      hotRanges: [range("k7", "k7", 95, 1)],
      sequentialField: undefined,
      sampleKeys: 100,
    });
    expect(diagnosis).toMatchObject({ kind: "one-hot-row", remedy: "shard-the-row" });
    // An ASCII key reads as text, and keeps its hex.
    expect(diagnosis.facts).toContainEqual({
      kind: "single-key",
      key: Buffer.from("k7").toString("hex"),
      text: "k7",
    });
  });

  it("a sequential key whose hot range reaches the table's end is a moving tail", () => {
    const diagnosis = classify({
      hotRanges: [range("t900", "", 90, 40)],
      sequentialField: "ts",
      sampleKeys: 100,
    });
    expect(diagnosis.kind).toBe("moving-tail");
    expect(diagnosis.facts).toEqual(
      expect.arrayContaining([{ kind: "sequential-key", field: "ts" }, { kind: "reaches-table-end" }]),
    );
  });

  it("hot ranges that move forward window after window are a moving tail, even without the key sample", () => {
    const diagnosis = classify({
      hotRanges: [range("t3", "t4", 80, 30, 2), range("t1", "t2", 85, 30, 0), range("t2", "t3", 82, 30, 1)],
      sequentialField: undefined,
      sampleKeys: 200,
    });
    expect(diagnosis).toMatchObject({ kind: "moving-tail", remedy: "lead-with-a-spreading-field" });
    expect(diagnosis.facts).toContainEqual({ kind: "moves-forward", ranges: 3 });
  });

  it("several hot ranges of similar CPU, in no forward order, are an even load near capacity", () => {
    const diagnosis = classify({
      hotRanges: [
        range("c", "d", 72, 50, 0),
        range("a", "b", 70, 50, 1),
        range("e", "f", 68, 50, 2),
        range("b", "c", 71, 50, 3),
      ],
      sequentialField: undefined,
      sampleKeys: 200,
    });
    expect(diagnosis).toMatchObject({ kind: "even-near-capacity", remedy: "add-nodes" });
  });

  it("a band of similar hot ranges over part of the table is one wide hot range, not an even load", () => {
    const band = [range("c", "d", 92, 50, 0), range("a", "b", 95, 50, 1), range("b", "c", 90, 50, 2)];
    expect(classify({ hotRanges: band, sequentialField: undefined, sampleKeys: 150 }).kind).toBe(
      "even-near-capacity",
    );
    const diagnosis = classify({ hotRanges: band, sequentialField: undefined, sampleKeys: 1000 });
    expect(diagnosis).toMatchObject({ kind: "wide-hot-range", remedy: "capacity-not-the-key" });
    expect(diagnosis.facts).toContainEqual({ kind: "hot-share-of-sample", share: 0.15 });
  });

  it("one dominant range: one entity, narrow when it holds few entities, wide when many — whatever its keys", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 2, max: 10_000 }),
        fc.integer({ min: 50, max: 100 }),
        (entities, keysPerEntity, cpu) => {
          const diagnosis = classify({
            hotRanges: [
              range("m", "n", cpu, entities * keysPerEntity, 0, entities),
              range("a", "b", cpu / (EVEN_MAX_OVER_MEDIAN * 2), 5, 1),
            ],
            sequentialField: undefined,
            sampleKeys: 200_000_000,
          });
          const expected =
            entities === 1
              ? ["one-hot-entity", "spread-the-entity"]
              : entities <= NARROW_MAX_ENTITIES
                ? ["narrow-hot-range", "spread-the-few-keys"]
                : ["wide-hot-range", "capacity-not-the-key"];
          expect([diagnosis.kind, diagnosis.remedy]).toEqual(expected);
        },
      ),
    );
  });

  it("one device's rows under a reverse timestamp are one hot entity, never a wide range to add nodes for", () => {
    const diagnosis = classify({
      hotRanges: [range("acme#d7#1", "acme#d7#9", 92, 400, 0, 1)],
      sequentialField: undefined,
      sampleKeys: 3000,
    });
    expect(diagnosis).toMatchObject({ kind: "one-hot-entity", remedy: "spread-the-entity" });
    expect(diagnosis.facts).toContainEqual({
      kind: "entities-in-range",
      count: 1,
      fields: ["device"],
      narrowAtMost: NARROW_MAX_ENTITIES,
    });
  });

  it("one writer's own tail, moving forward inside its rows, is one hot entity, not a table's moving tail", () => {
    const schema = parseSchema(
      'version: 1\nname: t\nlayout: text\nseparator: "#"\nsegments:\n  - field: tenant\n    codec: { type: string }\n  - field: device\n    codec: { type: string }\n  - field: ts\n    codec: { type: timestamp, unit: ms }\n',
    );
    const key = (device: string, minute: number) =>
      schema.encode({ tenant: "acme", device, ts: new Date(T0 + minute * 60_000) });
    // The device's newest rows, hot window after window, each window a little further on.
    const tablets = [0, 1, 2].map((window) =>
      hotTablet(key("d7", window * 10), key("d7", window * 10 + 9), 90, window),
    );
    const hot = hotRanges(tablets).map((each) => decodeHotRange(schema, each, []));
    const diagnosis = classifyWith({
      hotRanges: hot,
      sampleKeys: 100,
      sequentialField: undefined,
      entity: entityFields(schema),
    });
    expect(diagnosis).toMatchObject({ kind: "one-hot-entity", remedy: "spread-the-entity" });
    // Three devices' tails moving forward together are not one entity's.
    const three = hotRanges(
      ["d1", "d2", "d3"].map((device, window) => hotTablet(key(device, 0), key(device, 9), 90, window)),
    ).map((each) => decodeHotRange(schema, each, []));
    expect(
      classifyWith({
        hotRanges: three,
        sampleKeys: 100,
        sequentialField: undefined,
        entity: entityFields(schema),
      }).kind,
    ).toBe("moving-tail");
  });
});

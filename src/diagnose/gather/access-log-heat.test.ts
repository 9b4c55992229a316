import { describe, expect, it } from "vitest";
import { decodeHotRange } from "../decode/decoded-hot-range.js";
import { entityFields } from "../decode/entities.js";
import { fleetKey, fleetSchema } from "../decode/fixtures.testsuite.js";
import { hotRanges } from "../decode/hot-tablet.js";
import { classify } from "../diagnosis/classify.js";
import { AccessHeat, accessHeatLayout, HOT_ROW_SHARE } from "./access-log-heat.js";

const HOUR = 3_600_000;

function heatOf(records: { tsMs: number; key: Buffer }[]) {
  const layout = accessHeatLayout(
    records.map((record) => record.key),
    Math.min(...records.map((record) => record.tsMs)),
    Math.max(...records.map((record) => record.tsMs)),
  );
  const heat = new AccessHeat(layout);
  for (const record of records) heat.add(record);
  return heat.hotTablets("t");
}

const diagnosisOf = (records: { tsMs: number; key: Buffer }[]) => {
  const sample = [...new Map(records.map((record) => [record.key.toString("hex"), record.key])).values()];
  return classify({
    hotRanges: hotRanges(heatOf(records)).map((range) => decodeHotRange(fleetSchema, range, sample)),
    sampleKeys: sample.length,
    sequentialField: undefined,
    entity: entityFields(fleetSchema),
  });
};

describe("AccessHeat", () => {
  it("even traffic over many keys has no hot range", () => {
    const records = Array.from({ length: 4000 }, (_, i) => ({ tsMs: i * 1000, key: fleetKey(i % 400) }));
    expect(heatOf(records)).toEqual([]);
  });

  it("one key taking most operations is one hot row", () => {
    const hot = fleetKey(7);
    const records = Array.from({ length: 4000 }, (_, i) => ({
      tsMs: i * 1000,
      key: i % 4 === 0 ? fleetKey(i % 400) : hot,
    }));
    const tablets = heatOf(records);
    expect(tablets.length).toBe(4);
    for (const tablet of tablets) {
      expect(tablet.startKey).toEqual(hot);
      expect(tablet.nodeCpuPercent / 100).toBeGreaterThanOrEqual(HOT_ROW_SHARE);
    }
    expect(diagnosisOf(records).kind).toBe("one-hot-row");
  });

  it("writes that move through the key space with time are a moving tail", () => {
    // A time-first key: each hour's writes land on the next keys (like a sequence).
    const records = Array.from({ length: 4000 }, (_, i) => ({
      tsMs: i * HOUR,
      key: Buffer.from(`t${String(i).padStart(6, "0")}`),
    }));
    expect(diagnosisOf(records).kind).toBe("moving-tail");
  });
});

import { describe, expect, it } from "vitest";
import { parseHotTabletsJson } from "./hot-tablets-json.js";

const entry = {
  name: "projects/p/instances/i/clusters/c/hotTablets/h1",
  tableName: "projects/p/instances/i/tables/metrics",
  startTime: "2026-03-02T14:00:00Z",
  endTime: "2026-03-02T14:15:00Z",
  startKey: "acme-000000#1",
  endKey: "acme-022499#9",
  nodeCpuUsagePercent: 95.5,
};

describe("parseHotTabletsJson", () => {
  it("reads a ListHotTablets answer or a bare list", () => {
    const expected = [
      {
        table: "metrics",
        startKey: Buffer.from("acme-000000#1"),
        endKey: Buffer.from("acme-022499#9"),
        startTime: new Date("2026-03-02T14:00:00Z"),
        endTime: new Date("2026-03-02T14:15:00Z"),
        nodeCpuPercent: 95.5,
      },
    ];
    expect(parseHotTabletsJson(JSON.stringify({ hotTablets: [entry] }))).toEqual(expected);
    expect(parseHotTabletsJson(JSON.stringify([entry]))).toEqual(expected);
  });

  it("an empty key is the table's edge", () => {
    const [tablet] = parseHotTabletsJson(JSON.stringify([{ ...entry, startKey: "", endKey: undefined }]));
    expect(tablet!.startKey.length + tablet!.endKey.length).toBe(0);
  });

  it("names the entry and field that is wrong", () => {
    expect(() => parseHotTabletsJson("{")).toThrow(
      expect.objectContaining({ name: "HotTabletsJsonError", value: "{", allowed: "JSON" }),
    );
    expect(() => parseHotTabletsJson('{"tablets": []}')).toThrow(/expected \{"hotTablets"/);
    expect(() => parseHotTabletsJson(JSON.stringify([{ ...entry, startTime: "yesterday" }]))).toThrow(
      /\[0\]\.startTime: "yesterday"/,
    );
    expect(() => parseHotTabletsJson(JSON.stringify([{ ...entry, nodeCpuUsagePercent: 150 }]))).toThrow(
      /\[0\]\.nodeCpuUsagePercent: 150; allowed: 0–100/,
    );
  });
});

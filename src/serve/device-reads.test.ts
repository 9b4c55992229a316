import { describe, expect, it } from "vitest";
import { MemoryStore } from "../store/memory.js";
import { SaltedTable } from "../table/salted-table.js";
import { DeviceReads } from "./device-reads.js";
import { IntervalBuffer } from "./interval-buffer.js";
import { metricsSchema } from "./metrics-schema.js";

const T0 = 1_764_484_000_000;
const point = (deviceId: string, ts: number) => ({ tenant: "t", deviceId, ts, metrics: { v: ts - T0 } });

async function tableWith(segments: number[][], deviceId = "d") {
  const table = await SaltedTable.open(new MemoryStore({ name: "reads" }), metricsSchema(4), {
    create: true,
  });
  for (const [segment, offsets] of segments.entries()) {
    const buffer = new IntervalBuffer(10);
    buffer.add(offsets.map((offset) => point(deviceId, T0 + offset)));
    await table.putMany([...buffer.rows(T0 + segment)]);
  }
  return table;
}

describe("DeviceReads", () => {
  it("pages through many small rows and finishes the last interval across segments", async () => {
    // 40 one-point rows (intervals of 10 ms); a later segment adds a point to the interval at 100.
    const table = await tableWith([Array.from({ length: 40 }, (_, i) => i * 10), [105], [0], []]);
    await table.putMany([
      ...(() => {
        const other = new IntervalBuffer(10);
        other.add([point("other", T0 + 5)]);
        return other.rows(T0);
      })(),
    ]);
    const reads = new DeviceReads(table, { intervalMs: 10, cacheTtlMs: 0 });
    const latest = await reads.latest("d", 30);
    expect(latest.map((p) => p.ts - T0)).toEqual([
      390, 380, 370, 360, 350, 340, 330, 320, 310, 300, 290, 280, 270, 260, 250, 240, 230, 220, 210, 200, 190,
      180, 170, 160, 150, 140, 130, 120, 110, 105,
    ]);
    expect((await reads.latest("d", 1000)).length).toBe(42);
    expect(await reads.latest("nobody", 5)).toEqual([]);
    const range = await reads.range("d", T0 + 95, T0 + 110);
    expect(range).toEqual({
      points: [110, 105, 100].map((offset) => point("d", T0 + offset)),
      truncated: false,
    });
  });

  it("flags a range read cut at its cap", async () => {
    const table = await tableWith([Array.from({ length: 20 }, (_, i) => i)]);
    const reads = new DeviceReads(table, { intervalMs: 10, maxRangePoints: 5 });
    const range = await reads.range("d", T0, T0 + 100);
    expect(range.truncated).toBe(true);
    expect(range.points.map((p) => p.ts - T0)).toEqual([19, 18, 17, 16, 15]);
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../store/memory/memory.js";
import { SaltedTable } from "../../table/salted-table.js";
import { IntervalBuffer } from "../ingest/points/interval-buffer.js";
import { metricsSchema } from "../ingest/points/metrics-schema.js";
import type { MetricPoint } from "../ingest/points/point.js";
import { point, T0 } from "../ingest/points/points.testsuite.js";
import { DeviceReads } from "./device-reads.js";
import { decodeRangeCursor } from "./range-cursor.js";

async function emptyTable() {
  return SaltedTable.open(new MemoryStore({ name: "reads" }), metricsSchema(4), { create: true });
}

/** One flush (log segment) per entry of `segments`, each holding points at these offsets from T0. */
async function tableWith(segments: number[][], deviceId = "d") {
  const table = await emptyTable();
  for (const [segment, offsets] of segments.entries()) {
    await write(
      table,
      T0 + segment,
      offsets.map((offset) => point(deviceId, T0 + offset)),
    );
  }
  return table;
}

async function write(table: SaltedTable, segment: number, points: MetricPoint[], intervalMs = 10) {
  const buffer = new IntervalBuffer(intervalMs);
  buffer.add(points);
  expect((await table.putMany([...buffer.rows(segment, "w")])).failed).toEqual([]);
}

describe("DeviceReads", () => {
  it("pages through many small rows and finishes the last interval across segments", async () => {
    // 40 one-point rows (intervals of 10 ms); a later segment adds a point to the interval at 100.
    const table = await tableWith([Array.from({ length: 40 }, (_, i) => i * 10), [105], [0], []]);
    await write(table, T0, [point("other", T0 + 5)]);
    const reads = new DeviceReads(table, { intervalMs: 10, cacheTtlMs: 0 });
    const latest = await reads.latest("t", "d", 30);
    expect(latest.map((p) => p.ts - T0)).toEqual([
      390, 380, 370, 360, 350, 340, 330, 320, 310, 300, 290, 280, 270, 260, 250, 240, 230, 220, 210, 200, 190,
      180, 170, 160, 150, 140, 130, 120, 110, 105,
    ]);
    expect((await reads.latest("t", "d", 1000)).length).toBe(42);
    expect(await reads.latest("t", "nobody", 5)).toEqual([]);
    const range = await reads.range("t", "d", T0 + 95, T0 + 110);
    expect(range).toEqual({
      points: [110, 105, 100].map((offset) => point("d", T0 + offset)),
      truncated: false,
    });
  });

  it("keeps two tenants' devices of the same id apart", async () => {
    const table = await emptyTable();
    await write(table, T0, [point("shared", T0 + 1, "acme"), point("shared", T0 + 2, "globex")]);
    const reads = new DeviceReads(table, { intervalMs: 10, cacheTtlMs: 0 });
    expect(await reads.latest("acme", "shared", 10)).toEqual([point("shared", T0 + 1, "acme")]);
    expect((await reads.range("globex", "shared", T0, T0 + 10)).points).toEqual([
      point("shared", T0 + 2, "globex"),
    ]);
  });

  it("pages a range exactly: a cursor continues after the last point, ties included", async () => {
    // 7 points per millisecond over 30 ms, arriving over three flushes: every page boundary splits a tie.
    const table = await emptyTable();
    const offsets = Array.from({ length: 210 }, (_, i) => Math.floor(i / 7));
    for (let segment = 0; segment < 3; segment++) {
      const mine = offsets.filter((_, i) => i % 3 === segment);
      await write(
        table,
        T0 + segment,
        mine.map((offset) => point("d", T0 + offset)),
      );
    }
    const reads = new DeviceReads(table, { intervalMs: 10, cacheTtlMs: 0 });
    const whole = await reads.range("t", "d", T0, T0 + 100);
    expect(whole.points).toHaveLength(210);
    fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 50 }), async (limit) => {
        const paged: MetricPoint[] = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          const page = await reads.range("t", "d", T0, T0 + 100, {
            limit,
            cursor: cursor === undefined ? undefined : decodeRangeCursor(cursor),
          });
          expect(page.points.length).toBeLessThanOrEqual(limit);
          expect(page.truncated).toBe(page.next !== undefined);
          paged.push(...page.points);
          cursor = page.next;
          pages++;
        } while (cursor !== undefined);
        expect(paged).toEqual(whole.points);
        expect(pages).toBe(Math.ceil(210 / limit));
      }),
      { numRuns: 20 },
    );
  });

  it("flags a range read cut at its limit", async () => {
    const table = await tableWith([Array.from({ length: 20 }, (_, i) => i)]);
    const reads = new DeviceReads(table, { intervalMs: 10 });
    const range = await reads.range("t", "d", T0, T0 + 100, { limit: 5 });
    expect(range.truncated).toBe(true);
    expect(range.next).toEqual(expect.any(String));
    expect(range.points.map((p) => p.ts - T0)).toEqual([19, 18, 17, 16, 15]);
  });
});

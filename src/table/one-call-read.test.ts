import { describe, expect, it } from "vitest";
import { compileSchema } from "../keys/index.js";
import type { SchemaSpec } from "../keys/types.js";
import { MemoryStore } from "../store/memory/memory.js";
import type { KeyRange, StoreReadOptions, StoreRow } from "../store/store.js";
import { SaltedTable } from "./salted-table.js";

/** A memory store that records the ranges of each read it is asked for. */
class CountingStore extends MemoryStore {
  readonly reads: number[] = [];
  override read(ranges: readonly KeyRange[], options?: StoreReadOptions): AsyncIterable<StoreRow> {
    this.reads.push(ranges.length);
    return super.read(ranges, options);
  }
}

const spec = (buckets: number): SchemaSpec => ({
  version: 1,
  name: "fleet",
  layout: "text",
  separator: "#",
  segments: [
    { field: "device", codec: { type: "string" } },
    { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
  ],
  // Salted by device and time: one device's window spreads over every bucket.
  salt: { buckets, fields: ["device", "ts"] },
});
const T0 = 1_764_000_000_000;

async function table(buckets: number, points: number) {
  const store = new CountingStore();
  const opened = await SaltedTable.open(store, compileSchema(spec(buckets)), { create: true });
  const rows = [];
  for (const device of ["d1", "d2"]) {
    for (let i = 0; i < points; i++)
      rows.push({ values: { device, ts: T0 + i * 1000 }, cells: { v: `${i}` } });
  }
  expect((await opened.putMany(rows)).failed).toEqual([]);
  store.reads.length = 0;
  return { store, table: opened };
}

const window = { eq: { device: "d1" }, range: { field: "ts", gte: T0 + 100_000, lt: T0 + 200_000 } };
const timesOf = (rows: { values: Record<string, unknown> }[]) =>
  rows.map((row) => Number(row.values.ts) - T0);

describe("a bounded read over many buckets", () => {
  it("is one store read of every bucket's range, merged in key order", async () => {
    const { store, table: fleet } = await table(16, 400);
    const scan = fleet.scan(window);
    const rows = await scan.toArray();
    // Newest first (reverse timestamps), the window's 100 points.
    expect(timesOf(rows)).toEqual(Array.from({ length: 100 }, (_, i) => 199_000 - i * 1000));
    expect(store.reads).toEqual([16]);
    expect(scan.report).toMatchObject({ rounds: 1, rowsScanned: 100, rowsReturned: 100 });
  });

  it("keeps the per-bucket fan-out for a limit-bound read", async () => {
    const { store, table: fleet } = await table(16, 400);
    expect(await fleet.scan({ ...window, limit: 10 }).toArray()).toHaveLength(10);
    expect(store.reads.length).toBeGreaterThanOrEqual(16);
    expect(store.reads.every((ranges) => ranges === 1)).toBe(true);
  });

  it("goes on as a reader per bucket when the rows held for the merge grow past the buffer", async () => {
    // A scan of everything: the stream passes three of four buckets (~18k rows) before the last.
    const { store, table: fleet } = await table(4, 12_000);
    const scan = fleet.scan({});
    const rows = await scan.toArray();
    expect(rows).toHaveLength(24_000);
    const keys = rows.map((row) => row.key.subarray(fleet.schema.saltPrefixLength).toString("latin1"));
    expect(keys).toEqual([...keys].sort());
    expect(new Set(keys).size).toBe(24_000);
    expect(store.reads[0]).toBe(4);
    // The call was dropped for a reader per bucket not read to its end.
    expect(store.reads.length).toBeGreaterThan(1);
    expect(store.reads.slice(1).every((ranges) => ranges === 1)).toBe(true);
    expect(scan.report.rowsScanned).toBeLessThanOrEqual(24_000 + 1);
  });
});

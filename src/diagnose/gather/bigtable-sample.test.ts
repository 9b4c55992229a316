import { Bigtable } from "@google-cloud/bigtable";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BigtableStore } from "../../store/bigtable/bigtable.js";
import {
  rangeQuotas,
  rangesBetween,
  sampleProbability,
  sampleRowKeys,
  sampleRows,
} from "./bigtable-sample.js";

if (!process.env.BIGTABLE_EMULATOR_HOST)
  throw new Error("BIGTABLE_EMULATOR_HOST is unset: the vitest global setup starts the emulator");

const tableId = `diag${process.pid}_${Date.now().toString(36)}`;
const ROWS = 2000;
const keyOf = (i: number) => Buffer.from(`dev-${String(i).padStart(5, "0")}#m`);

describe("row sampling bounds", () => {
  it("the probability keeps about count rows, and never exceeds 1", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e6 }), fc.integer({ min: 0, max: 1e12 }), (count, bytes) => {
        const p = sampleProbability(count, bytes, 1024);
        expect(p).toBeGreaterThan(0);
        expect(p).toBeLessThanOrEqual(1);
        if (p < 1) expect((p * bytes) / 1024).toBeCloseTo(count, 6);
      }),
    );
  });

  it("ranges between boundaries cover the table once, in order, with their bytes", () => {
    const ranges = rangesBetween([
      { key: Buffer.from("m"), offsetBytes: 10 },
      { key: Buffer.from("c"), offsetBytes: 4 },
      { key: Buffer.alloc(0), offsetBytes: 20 },
    ]);
    expect(
      ranges.map((range) => [range.start.toString(), range.end?.toString() ?? null, range.bytes]),
    ).toEqual([
      ["", "c", 4],
      ["c", "m", 6],
      ["m", null, 10],
    ]);
    // Without the end-of-table sample (the emulator's answer) the last range's bytes are unknown.
    expect(rangesBetween([{ key: Buffer.from("c"), offsetBytes: 4 }]).map((range) => range.bytes)).toEqual([
      4,
      undefined,
    ]);
  });

  it("shares count out in proportion to the ranges' bytes, summing to count", () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.integer({ min: 0, max: 1e12 }), { nil: undefined }), {
          minLength: 1,
          maxLength: 200,
        }),
        fc.integer({ min: 0, max: 1e6 }),
        (bytes, count) => {
          const ranges = bytes.map((b) => ({ start: Buffer.alloc(0), end: null, bytes: b }));
          const quotas = rangeQuotas(ranges, count);
          expect(quotas.reduce((sum, quota) => sum + quota, 0)).toBe(count);
          const known = bytes.filter((b) => b !== undefined);
          const knownTotal = known.reduce((sum, b) => sum + b, 0);
          const weights = bytes.map((b) => (knownTotal === 0 ? 1 : (b ?? knownTotal / known.length)));
          const total = weights.reduce((sum, weight) => sum + weight, 0);
          for (const [index, quota] of quotas.entries()) {
            expect(quota).toBeGreaterThanOrEqual(0);
            expect(Math.abs(quota - (count * weights[index]!) / total)).toBeLessThan(1 + 1e-9);
          }
        },
      ),
    );
  });
});

describe("SampleRowKeys and a row sample (emulator)", () => {
  let client: Bigtable;
  beforeAll(async () => {
    const store = await BigtableStore.createTable({
      tableId,
      splits: [keyOf(500), keyOf(1000), keyOf(1500)],
    });
    const cells = new Map([["v", Buffer.alloc(200, 1)]]);
    const result = await store.write(
      Array.from({ length: ROWS }, (_, i) => ({ type: "put" as const, key: keyOf(i), cells })),
    );
    expect(result.failed).toEqual([]);
    await store.close();
    client = new Bigtable({ projectId: "keyspread", metricsEnabled: false });
  });
  afterAll(async () => {
    await client.close();
  });

  it("reads the tablet boundaries with their byte offsets", async () => {
    const samples = await sampleRowKeys(client.instance("keyspread").table(tableId));
    expect(samples.length).toBeGreaterThan(0);
    const offsets = samples.map((sample) => sample.offsetBytes);
    expect([...offsets].sort((a, b) => a - b)).toEqual(offsets);
  });

  it("keeps at most count keys, spread over every range, all real rows", async () => {
    const table = client.instance("keyspread").table(tableId);
    const boundaries = [keyOf(500), keyOf(1000), keyOf(1500), Buffer.alloc(0)].map((key, index) => ({
      key,
      offsetBytes: (index + 1) * 500 * 220,
    }));
    const sample = await sampleRows(table, boundaries, { count: 100, timeoutMs: 30_000, rowBytes: 220 });
    expect(sample.timedOut).toBe(false);
    expect(sample.probability).toBeCloseTo(100 / ROWS, 6);
    expect(sample.keys.length).toBeGreaterThan(0);
    expect(sample.keys.length).toBeLessThanOrEqual(100);
    const indexes = sample.keys.map((key) => Number(key.toString().slice(4, 9)));
    for (const index of indexes) expect(index).toBeLessThan(ROWS);
    // Sampled from each quarter of the table, not only its first rows.
    expect(new Set(indexes.map((index) => Math.floor(index / 500))).size).toBe(4);
  });

  it("takes from each range in proportion to its bytes, not equally from a small range and a big one", async () => {
    const table = client.instance("keyspread").table(tableId);
    // Rows 0–99 are a twentieth of the table; the rest is the other nineteen.
    const boundaries = [
      { key: keyOf(100), offsetBytes: 100 * 220 },
      { key: Buffer.alloc(0), offsetBytes: ROWS * 220 },
    ];
    // A row size far above the real one keeps every row (probability 1): the quotas alone decide.
    const sample = await sampleRows(table, boundaries, { count: 100, timeoutMs: 30_000, rowBytes: 1e9 });
    expect(sample.probability).toBe(1);
    const indexes = sample.keys.map((key) => Number(key.toString().slice(4, 9)));
    expect(indexes.filter((index) => index < 100)).toHaveLength(5);
    expect(indexes.filter((index) => index >= 100)).toHaveLength(95);
  });

  it("a small table is read whole, still bounded by count", async () => {
    const table = client.instance("keyspread").table(tableId);
    const sample = await sampleRows(table, [{ key: Buffer.alloc(0), offsetBytes: 0 }], {
      count: 50,
      timeoutMs: 30_000,
    });
    expect(sample.probability).toBe(1);
    expect(sample.keys).toHaveLength(50);
  });

  it("a deadline in the past stops before reading and says so", async () => {
    const table = client.instance("keyspread").table(tableId);
    const sample = await sampleRows(table, [{ key: Buffer.alloc(0), offsetBytes: 0 }], {
      count: 50,
      timeoutMs: 0,
    });
    expect(sample).toMatchObject({ keys: [], timedOut: true });
  });
});

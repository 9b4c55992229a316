import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatAccessLine } from "../../access-log/access-line.js";
import type { AccessRecord } from "../../access-log/access-record.js";
import { syntheticAccess } from "../input/synthetic-access.js";
import { tempDirForTests } from "../temp-dir.fixture.js";
import { heatCellValue } from "./heat-matrix.js";
import { readAccessLogMatrix } from "./log-matrix.js";
import { matrixFromRecords } from "./records-matrix.js";

const dir = tempDirForTests("keyspread-viz-");

describe("readAccessLogMatrix", () => {
  it("bins JSONL and CSV logs alike, into rates per second", async () => {
    const records = [...syntheticAccess("hot-band", { records: 2000, durationS: 60 })];
    const jsonl = join(dir(), "log.jsonl");
    const csv = join(dir(), "log.csv");
    await writeFile(
      jsonl,
      records
        .map((r) =>
          JSON.stringify({
            ts: r.tsMs,
            key: r.key.toString(),
            op: r.op,
            bytes: r.bytes,
            latencyMs: r.latencyMs,
          }),
        )
        .join("\n"),
    );
    await writeFile(
      csv,
      `ts,key,op,bytes,latencyMs\r\n${records.map((r) => `${r.tsMs},${r.key},${r.op},${r.bytes},${r.latencyMs}`).join("\r\n")}\r\n`,
    );
    const fromJsonl = await readAccessLogMatrix(jsonl, { maxRows: 50 });
    const fromCsv = await readAccessLogMatrix(csv, { maxRows: 50 });
    expect(fromCsv.values.ops).toEqual(fromJsonl.values.ops);
    expect(fromJsonl.values.latency).toEqual(matrixFromRecords(records, { maxRows: 50 }).values.latency);
    let opsTotal = 0;
    for (let row = 0; row < fromJsonl.rows.length; row++) {
      for (let column = 0; column < fromJsonl.time.columns; column++) {
        opsTotal += heatCellValue(fromJsonl, "ops", row, column) * fromJsonl.time.columnS;
      }
    }
    expect(opsTotal).toBeCloseTo(records.length);
    expect(fromJsonl.rows.length).toBeLessThanOrEqual(50);
    expect(fromJsonl.time.epoch).toBe(true);
  });

  it("names the file and line of a bad record", async () => {
    const path = join(dir(), "bad.jsonl");
    await writeFile(path, '{"ts":1,"key":"a","op":"read"}\n\n{"ts":2,"key":"b","op":"erase"}\n');
    await expect(readAccessLogMatrix(path)).rejects.toThrow(`${path}:3: op "erase"`);
    const empty = join(dir(), "empty.jsonl");
    await writeFile(empty, "\n");
    await expect(readAccessLogMatrix(empty)).rejects.toThrow(
      expect.objectContaining({ name: "EmptyAccessLogError", path: empty, missing: "records" }),
    );
  });

  it("reads a log that fits in memory once, and a longer one twice", async () => {
    const path = join(dir(), "passes.jsonl");
    const records = [...syntheticAccess("diagonal", { records: 500, durationS: 60 })];
    await writeFile(path, records.map(formatAccessLine).join(""));
    const passes = async (keptRecords: number) => {
      const seen = new Set<number>();
      await readAccessLogMatrix(path, { keptRecords, onProgress: (pass) => seen.add(pass) });
      return [...seen];
    };
    expect(await passes(500)).toEqual([1]);
    expect(await passes(499)).toEqual([1, 2]);
  });

  it("gives the matrix of the two passes over the records, whether the log is read once or twice", async () => {
    const key = fc.oneof(
      fc.constantFrom("t0#a", "t0#b", "t1#a", "t2#zz", "u#1", "hex:00ff", "hex:ff00", "é#1"),
      fc.stringMatching(/^[a-d]{1,3}(#[0-9]{1,2})?$/),
    );
    const record = fc.record({
      tsMs: fc.integer({ min: 1_796_000_000_000, max: 1_796_000_600_000 }),
      key,
      op: fc.constantFrom("read", "write", "scan"),
      bytes: fc.integer({ min: 0, max: 5000 }),
      latencyMs: fc.option(fc.double({ min: 0, max: 500, noNaN: true }), { nil: undefined }),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(record, { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 2, max: 40 }),
        async (drawn, maxRows) => {
          const records: AccessRecord[] = drawn.map(({ key: text, latencyMs, ...rest }) => ({
            ...rest,
            key: text.startsWith("hex:") ? Buffer.from(text.slice(4), "hex") : Buffer.from(text),
            ...(latencyMs === undefined ? {} : { latencyMs }),
          }));
          const path = join(dir(), `random-${run++}.jsonl`);
          await writeFile(path, records.map(formatAccessLine).join(""));
          const options = { maxRows, sampleSize: 16 };
          const expected = matrixFromRecords(records, options);
          for (const keptRecords of [records.length, records.length - 1]) {
            const matrix = await readAccessLogMatrix(path, { ...options, keptRecords });
            expect(matrix.rows).toEqual(expected.rows);
            expect(matrix.time).toEqual(expected.time);
            expect(matrix.values).toEqual(expected.values);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

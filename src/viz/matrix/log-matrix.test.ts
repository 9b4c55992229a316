import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syntheticAccess } from "../input/synthetic-access.js";
import { heatCellValue } from "./heat-matrix.js";
import { readAccessLogMatrix } from "./log-matrix.js";
import { matrixFromRecords } from "./records-matrix.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "keyspread-viz-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("readAccessLogMatrix", () => {
  it("bins JSONL and CSV logs alike, into rates per second", async () => {
    const records = [...syntheticAccess("hot-band", { records: 2000, durationS: 60 })];
    const jsonl = join(dir, "log.jsonl");
    const csv = join(dir, "log.csv");
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
    const progress: number[] = [];
    const fromJsonl = await readAccessLogMatrix(jsonl, {
      maxRows: 50,
      onProgress: (pass) => progress.push(pass),
    });
    const fromCsv = await readAccessLogMatrix(csv, { maxRows: 50 });
    expect(progress).toContain(1);
    expect(progress).toContain(2);
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
    const path = join(dir, "bad.jsonl");
    await writeFile(path, '{"ts":1,"key":"a","op":"read"}\n\n{"ts":2,"key":"b","op":"erase"}\n');
    await expect(readAccessLogMatrix(path)).rejects.toThrow(`${path}:3: op "erase"`);
    const empty = join(dir, "empty.jsonl");
    await writeFile(empty, "\n");
    await expect(readAccessLogMatrix(empty)).rejects.toThrow(/no access records/);
  });
});

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { expectGolden } from "../../../test/golden.js";
import type { AccessOp, AccessRecord } from "../../access-log/access-record.js";
import { compileSchema } from "../../keys/schema.js";
import { nameHotKeys } from "../hot-keys.js";
import { HEAT_METRICS } from "../matrix/heat-matrix.js";
import { matrixFromRecords } from "../matrix/records-matrix.js";
import { detectPatterns } from "./detect-patterns.js";
import { findingRule, findingSummary } from "./finding-text.js";

const START_MS = Date.UTC(2026, 10, 30, 6);
const KEYS = 5000;
const orderKey = (index: number) => Buffer.from(`order#${String(1_000_000 + index).padStart(12, "0")}`);

/** A random generator from a seed (the logs are large: fast-check picks the seed and the shape). */
function random32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

interface HotLog {
  seed: number;
  hotKey: number;
  /** Minute the hot row starts, and for how many minutes, of an hour. */
  fromMinute: number;
  minutes: number;
  /** Hot-row operations per second against the background's 20. */
  hotPerS: number;
}

/** An hour of reads and writes spread over 5,000 order keys, and one key read hard for some minutes. */
function hotLog({ seed, hotKey, fromMinute, minutes, hotPerS }: HotLog): AccessRecord[] {
  const random = random32(seed);
  const records: AccessRecord[] = [];
  const ops: AccessOp[] = ["read", "write"];
  for (let s = 0; s < 3600; s++) {
    for (let i = 0; i < 20; i++)
      records.push({
        tsMs: START_MS + s * 1000 + Math.floor(random() * 1000),
        key: orderKey(Math.floor(random() * KEYS)),
        op: ops[Math.floor(random() * 2)]!,
        bytes: 100,
      });
    if (s >= fromMinute * 60 && s < (fromMinute + minutes) * 60)
      for (let i = 0; i < hotPerS; i++)
        records.push({
          tsMs: START_MS + s * 1000 + Math.floor(random() * 1000),
          key: orderKey(hotKey),
          op: "read",
          bytes: 100,
        });
  }
  return records;
}

const hotLogs = fc.record({
  seed: fc.integer({ min: 1, max: 2 ** 31 }),
  hotKey: fc.integer({ min: 0, max: KEYS - 1 }),
  fromMinute: fc.integer({ min: 0, max: 45 }),
  minutes: fc.integer({ min: 7, max: 15 }),
  // 5/s against 20/s is 20 % of all operations; at least 3/s (13 %).
  hotPerS: fc.integer({ min: 3, max: 8 }),
});

const dir = mkdtempSync(join(tmpdir(), "keyspread-hot-row-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let logs = 0;

/** The records as a JSONL access log; returns its path. */
function writeLog(records: readonly AccessRecord[]): string {
  const file = join(dir, `log-${logs++}.jsonl`);
  const line = (record: AccessRecord) =>
    JSON.stringify({ ts: record.tsMs, key: record.key.toString(), op: record.op });
  writeFileSync(file, records.map(line).join("\n"));
  return file;
}

describe("a hot row", () => {
  it("carrying ≥ 10 % of the load for ≥ 5 minutes, anywhere in the keys and the hour, is named with its share", async () => {
    await fc.assert(
      fc.asyncProperty(hotLogs, async (log) => {
        const records = hotLog(log);
        const matrix = matrixFromRecords(records, { maxRows: 500, maxColumns: 240 });
        const findings = await nameHotKeys(writeLog(records), detectPatterns(matrix, "ops"), {});
        const key = orderKey(log.hotKey).toString();
        const found = findings.find((finding) => finding.hotKey?.key === key);
        const seen = findings.map(findingSummary);
        expect(found, `${JSON.stringify(log)}: ${seen.join(" | ")}`).toBeDefined();
        // ≥ 3/s against the background's 20/s: at least 13 % of the operations while it is hot.
        expect(found!.hotKey!.share).toBeGreaterThanOrEqual(0.1);
        // Its time span covers the hot minutes' middle and lies within them (give or take a column).
        const fromS = START_MS / 1000 + log.fromMinute * 60;
        expect(found!.fromS).toBeGreaterThanOrEqual(fromS - 60);
        expect(found!.fromS).toBeLessThan(fromS + (log.minutes * 60) / 2);
      }),
      { numRuns: 6 },
    );
  }, 120_000);

  it("is named by its own key, decoded through the schema, from the log", async () => {
    const log = { seed: 7, hotKey: 906, fromMinute: 20, minutes: 10, hotPerS: 5 };
    const records = hotLog(log);
    const file = writeLog(records);
    const schema = compileSchema({
      version: 1,
      name: "orders",
      layout: "text",
      segments: [{ literal: "order" }, { field: "orderId", codec: { type: "uint", width: 12 } }],
    });
    const matrix = matrixFromRecords(records, { maxRows: 500, maxColumns: 240 });
    const findings = await nameHotKeys(file, detectPatterns(matrix, "reads"), { schema, metric: "reads" });
    const hot = findings.find((finding) => finding.kind === "hot-row")!;
    expect(hot.hotKey?.key).toBe("order#000001000906 (orderId 1000906)");
    // 5/s of the 15/s read then (the background's 20/s are half reads).
    expect(hot.hotKey!.share).toBeGreaterThan(0.25);
    const text = findings
      .map((finding) => `- ${findingSummary(finding)}\n  rule: ${findingRule(finding)}\n`)
      .join("");
    expectGolden(import.meta.url, "hot-row-named.txt", text);
  }, 60_000);
});

describe("pattern findings over random logs", () => {
  const randomLogs = fc.array(
    fc.record({
      second: fc.integer({ min: 0, max: 1800 }),
      key: fc.integer({ min: 0, max: 300 }),
      op: fc.constantFrom<AccessOp>("read", "write", "scan"),
      bytes: fc.integer({ min: 0, max: 5000 }),
      latencyMs: fc.option(fc.double({ min: 0, max: 500, noNaN: true }), { nil: undefined }),
    }),
    { minLength: 1, maxLength: 400 },
  );

  it("print only finite numbers, for every metric", () => {
    fc.assert(
      fc.property(randomLogs, (lines) => {
        const records: AccessRecord[] = lines.map((line) => ({
          tsMs: START_MS + line.second * 1000,
          key: orderKey(line.key),
          op: line.op,
          bytes: line.bytes,
          ...(line.latencyMs === undefined ? {} : { latencyMs: line.latencyMs }),
        }));
        const matrix = matrixFromRecords(records, { maxRows: 50, maxColumns: 60 });
        for (const metric of HEAT_METRICS) {
          if (matrix.values[metric] === undefined) continue;
          for (const finding of detectPatterns(matrix, metric)) {
            const text = `${findingSummary(finding)} ${findingRule(finding)}`;
            expect(text, metric).not.toMatch(/NaN|Infinity/);
            // Every measure is a finite number; a band's contrast may be Infinity (the rest idle).
            for (const [field, value] of Object.entries(finding))
              if (typeof value === "number" && field !== "contrast")
                expect(Number.isFinite(value), `${metric} ${finding.kind} ${field}`).toBe(true);
          }
        }
      }),
      { numRuns: 200 },
    );
  }, 120_000);
});

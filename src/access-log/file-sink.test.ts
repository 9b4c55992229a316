import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAccessJsonRecord } from "./access-record.js";
import { FileAccessLogSink } from "./file-sink.js";

const dir = mkdtempSync(join(tmpdir(), "keyspread-access-log-"));
const record = (n: number) => ({
  tsMs: 1_700_000_000_000 + n,
  key: Buffer.from(`dev-${n}#x`),
  op: "write" as const,
  bytes: 100,
});
const lines = (path: string) => readFileSync(path, "utf8").trim().split("\n");

describe("the access-log file sink", () => {
  it("appends records in the format heatmap and replay read, binary keys as hex and scans with their end", async () => {
    const path = join(dir, "plain.jsonl");
    const sink = await FileAccessLogSink.open(path);
    sink.write(record(1));
    sink.write({
      tsMs: 2,
      key: Buffer.from([0, 255]),
      op: "scan",
      bytes: 10,
      rows: 3,
      end: null,
      latencyMs: 1.5,
    });
    await sink.close();
    const [first, second] = lines(path).map(parseAccessJsonRecord);
    expect(first).toMatchObject({
      tsMs: 1_700_000_000_001,
      key: Buffer.from("dev-1#x"),
      op: "write",
      bytes: 100,
    });
    expect(second).toMatchObject({
      key: Buffer.from([0, 255]),
      op: "scan",
      rows: 3,
      end: null,
      latencyMs: 1.5,
    });
    expect(sink.stats).toMatchObject({ written: 2, dropped: 0 });
  });

  it("rotates at its size, keeping the newest files", async () => {
    const path = join(dir, "rotated.jsonl");
    const sink = await FileAccessLogSink.open(path, { maxBytes: 4000, maxFiles: 2 });
    for (let n = 0; n < 300; n++) {
      sink.write(record(n));
      if (n % 50 === 49) await sink.flush();
    }
    await sink.close();
    expect(sink.stats.rotations).toBeGreaterThanOrEqual(2);
    expect(existsSync(`${path}.1`) && existsSync(`${path}.2`)).toBe(true);
    expect(existsSync(`${path}.3`)).toBe(false);
  });

  it("drops and counts records beyond its queue rather than holding them", async () => {
    const sink = await FileAccessLogSink.open(join(dir, "bounded.jsonl"), { queueLimit: 10 });
    for (let n = 0; n < 25; n++) sink.write(record(n));
    await sink.close();
    expect(sink.stats).toMatchObject({ written: 10, dropped: 15 });
  });

  it("survives a full disk: the records are counted as dropped, the error kept, nothing thrown", async () => {
    const sink = await FileAccessLogSink.open("/dev/full");
    for (let n = 0; n < 5; n++) sink.write(record(n));
    await sink.flush();
    sink.write(record(6));
    await sink.close();
    expect(sink.stats.written).toBe(0);
    expect(sink.stats.dropped).toBe(6);
    expect(sink.stats.lastErrorCode).toBe("ENOSPC");
  });
});

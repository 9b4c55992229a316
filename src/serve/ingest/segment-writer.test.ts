import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../store/memory/memory.js";
import { SaltedTable } from "../../table/salted-table.js";
import { DeviceReads } from "../http/device-reads.js";
import { HotspotMonitor } from "../observe/hotspot-monitor.js";
import { ServiceMetrics } from "../observe/service-metrics.js";
import { recordLetter } from "./dead-letter.js";
import { metricsSchema } from "./points/metrics-schema.js";
import { point, T0 } from "./points/points.testsuite.js";
import { SegmentLog } from "./segment-log.js";
import { SegmentWriter } from "./segment-writer.js";
import { WriteAdmission } from "./write-admission.js";

const INTERVAL_MS = 60_000;
const segmentFile = (id: number) => `${String(id).padStart(13, "0")}.wal`;

/** A segment log whose open segment holds `points` (reserved as pending), rotated out and ready to write. */
async function rotatedSegment(points = [point("d", T0 + 1), point("d", T0 + 2)]) {
  const wal = join(await mkdtemp(join(tmpdir(), "segment-writer-")), "wal");
  const store = new MemoryStore({ name: "p" });
  const table = await SaltedTable.open(store, metricsSchema(4), { create: true });
  const { log } = await SegmentLog.open(wal, "p", INTERVAL_MS);
  const admission = new WriteAdmission(log.wal.journal);
  admission.reserve(points.length);
  log.open.buffer.add(points);
  const rotated = (await log.rotate())!;
  const metrics = new ServiceMetrics();
  const writer = new SegmentWriter(
    {
      table,
      metrics,
      monitor: new HotspotMonitor({ buckets: table.schema.bucketCount }, metrics, () => {}),
      log: () => {},
    },
    log,
    admission,
  );
  const storedTimes = async () =>
    (await new DeviceReads(table, { intervalMs: INTERVAL_MS, cacheTtlMs: 0 }).latest("t", "d", 10)).map(
      (p) => p.ts - T0,
    );
  return { wal, store, log, admission, rotated, writer, storedTimes };
}

describe("SegmentWriter", () => {
  it("completes a segment whose rows all land: letters on disk, keys journaled, file deleted, points released", async () => {
    const { wal, log, admission, rotated, writer, storedTimes } = await rotatedSegment();
    const id = rotated.segment.id;
    const key = { key: "t\0k1", fingerprint: "f", accepted: 2, atMs: T0 };
    const unreadable = recordLetter(id, "unreadable log record: test", Buffer.from("x"));

    await writer.write({ id, buffer: rotated.buffer, keys: [key], recordLetters: [unreadable] });

    expect(await storedTimes()).toEqual([2, 1]);
    expect(await readdir(wal)).not.toContain(segmentFile(id));
    expect(log.completeBelow()).toBeGreaterThan(id);
    expect(log.wal.journal.get(key.key)).toEqual(key);
    expect(admission.pendingPoints).toBe(0);
    expect(writer.takeDeadLetters()).toBe(1);
    const letters = (await readFile(join(wal, "dead-letter.jsonl"), "utf8")).trim().split("\n");
    expect(letters.map((line) => JSON.parse(line).segment)).toEqual([id]);
    expect(writer.totals).toMatchObject({ rowsWritten: 1, pointsWritten: 2 });
    await log.close();
  });

  it("keeps a segment while the store refuses its rows, and completes it once a retry lands", async () => {
    const { wal, store, log, admission, rotated, writer, storedTimes } = await rotatedSegment();
    const id = rotated.segment.id;
    store.faults.failWrite = () => "unavailable";

    await writer.write({ id, buffer: rotated.buffer, keys: [], recordLetters: [] });

    expect(await storedTimes()).toEqual([]);
    expect(await readdir(wal)).toContain(segmentFile(id));
    expect(log.completeBelow()).toBe(id);
    expect(admission.pendingPoints).toBe(2);

    store.faults.failWrite = undefined;
    await writer.settle();
    expect(await storedTimes()).toEqual([2, 1]);
    expect(await readdir(wal)).not.toContain(segmentFile(id));
    expect(admission.pendingPoints).toBe(0);
    expect(writer.takeDeadLetters()).toBe(0);
    await log.close();
  });
});

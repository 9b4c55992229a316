import { writeFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { MemoryStore } from "../../store/memory/memory.js";
import { SaltedTable } from "../../table/salted-table.js";
import { DeviceReads } from "../http/device-reads.js";
import { HotspotMonitor } from "../observe/hotspot-monitor.js";
import { ServiceMetrics } from "../observe/service-metrics.js";
import type { DiskFaults } from "../wal/faulty-disk.testsuite.js";
import { recordHeader } from "../wal/wal-record.js";
import { IngestPipeline, type IngestPipelineOptions } from "./ingest-pipeline.js";
import { encodeLoggedRequest } from "./logged-request.js";
import { metricsSchema } from "./points/metrics-schema.js";
import type { MetricPoint } from "./points/point.js";
import { point, T0 } from "./points/points.testsuite.js";
import { PendingPointsFull } from "./write-admission.js";

/** The disk under every write-ahead log of this file: a test sets its faults while a pipeline runs. */
const disk = vi.hoisted((): DiskFaults => ({}));
vi.mock("../wal/wal-file-system.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../wal/wal-file-system.js")>();
  const { faultyDisk } = await import("../wal/faulty-disk.testsuite.js");
  return { ...real, nodeWalFileSystem: faultyDisk(real.nodeWalFileSystem, disk) };
});

const segmentsIn = async (wal: string) => (await readdir(wal)).filter((name) => name.endsWith(".wal")).sort();
const request = (points: MetricPoint[]) => ({
  points,
  format: "ndjson" as const,
  body: Buffer.from(points.map((p) => JSON.stringify(p)).join("\n")),
});

async function openTable(name = "p") {
  return SaltedTable.open(new MemoryStore({ name }), metricsSchema(4), { create: true });
}

async function openPipeline(
  table: SaltedTable,
  walDirectory: string,
  extra: Partial<IngestPipelineOptions> = {},
) {
  const metrics = new ServiceMetrics();
  const lines: string[] = [];
  const pipeline = await IngestPipeline.open({
    table,
    walDirectory,
    intervalMs: 60_000,
    metrics,
    monitor: new HotspotMonitor({ buckets: table.schema.bucketCount }, metrics, () => {}),
    log: (line) => lines.push(line),
    ...extra,
  });
  return { pipeline, metrics, lines };
}

const storedTimes = async (table: SaltedTable, deviceId = "d", tenant = "t") =>
  (await new DeviceReads(table, { intervalMs: 60_000, cacheTtlMs: 0 }).latest(tenant, deviceId, 1000)).map(
    (p) => p.ts - T0,
  );

describe("IngestPipeline recovery", () => {
  it("replays a segment into the same rows, so replaying an already written segment adds nothing", async () => {
    const directory = await mkdtemp(join(tmpdir(), "pipeline-"));
    const wal = join(directory, "wal");
    const table = await openTable();
    const first = await openPipeline(table, wal);
    await first.pipeline.accept(request([0, 1, 2].map((i) => point("d", T0 + i))));
    // Keep a copy of the segment as a crash right after the store write would have left it.
    const [segment] = await segmentsIn(wal);
    await copyFile(join(wal, segment!), join(directory, "saved"));
    await first.pipeline.close();
    await copyFile(join(directory, "saved"), join(wal, segment!));

    const second = await openPipeline(table, wal);
    expect(second.pipeline.totals.pointsWritten).toBe(3);
    await second.pipeline.close();
    expect(await storedTimes(table)).toEqual([2, 1, 0]);
    expect(await segmentsIn(wal)).toHaveLength(1);
  });

  it("loses no journaled request's points to a crash at its segment's unlink, and answers its retry as done", async () => {
    const directory = await mkdtemp(join(tmpdir(), "pipeline-unlink-crash-"));
    const wal = join(directory, "wal");
    const table = await openTable();
    // The segment's rows are written and its keys journaled; then the process dies at the unlink.
    const crashAtUnlink = Object.assign(new Error("killed at unlink"), { code: "EKILLED" });
    disk.remove = (path) => (path.endsWith(".wal") ? crashAtUnlink : undefined);
    const first = await openPipeline(table, wal, { closeTimeoutMs: 0 });
    const idempotency = { key: "retry-me", fingerprint: "f", accepted: 50, atMs: Date.now() };
    const times = (from: number) => Array.from({ length: 50 }, (_, i) => from + i);
    await first.pipeline.accept({ ...request(times(0).map((i) => point("d", T0 + i))), idempotency });
    await first.pipeline.accept(request(times(50).map((i) => point("d", T0 + i))));
    await first.pipeline.close();
    disk.remove = undefined;
    expect(first.lines.some((line) => line.includes('"event":"left-in-log"'))).toBe(true);

    const second = await openPipeline(table, wal);
    await second.pipeline.settle();
    expect((await storedTimes(table)).sort((a, b) => a - b)).toEqual([...times(0), ...times(50)]);
    expect(second.pipeline.checkIdempotencyKey("retry-me", "f").state).toBe("done");
    await second.pipeline.close();
    expect(await segmentsIn(wal)).toHaveLength(1);
  });

  it("reads the segments left behind one at a time, each once the one before it is written", async () => {
    const directory = await mkdtemp(join(tmpdir(), "pipeline-one-at-a-time-"));
    const wal = join(directory, "wal");
    const store = new MemoryStore({ name: "p" });
    const table = await SaltedTable.open(store, metricsSchema(4), { create: true });
    await (await openPipeline(table, wal)).pipeline.close();
    const segment = (ts: number) => {
      const payload = encodeLoggedRequest(request([point("d", T0 + ts)]));
      return Buffer.concat([recordHeader(payload), payload]);
    };
    await writeFile(join(wal, "0000000000001.wal"), segment(1));
    await writeFile(join(wal, "0000000000002.wal"), segment(2));
    // Segment 2 changes on disk while segment 1's rows are written: only a restart that had not
    // read it yet stores the new content.
    let changed = false;
    store.faults.failWrite = () => {
      if (!changed) writeFileSync(join(wal, "0000000000002.wal"), segment(3));
      changed = true;
      return undefined;
    };
    const second = await openPipeline(table, wal);
    await second.pipeline.close();
    expect(await storedTimes(table)).toEqual([3, 1]);
  });

  it("replays every intact record of a segment with a flipped bit, and counts, logs and exports the damage", async () => {
    const directory = await mkdtemp(join(tmpdir(), "pipeline-flip-"));
    const wal = join(directory, "wal");
    const first = await openPipeline(await openTable(), wal);
    for (let i = 0; i < 5; i++) await first.pipeline.accept(request([point("d", T0 + i)]));
    const [segment] = await segmentsIn(wal);
    const bytes = await readFile(join(wal, segment!));
    await first.pipeline.close();
    const recordBytes = bytes.length / 5;
    bytes[2 * recordBytes + 20]! ^= 0x04; // inside the third record's payload
    await writeFile(join(wal, segment!), bytes);

    const table = await openTable();
    const second = await openPipeline(table, wal);
    await second.pipeline.close();
    expect(await storedTimes(table)).toEqual([4, 3, 1, 0]);
    expect(second.lines).toContainEqual(
      JSON.stringify({
        event: "wal-corrupt",
        segment: Number(segment!.slice(0, -4)),
        offset: 2 * recordBytes,
        bytes: recordBytes,
      }),
    );
    const exported = await second.metrics.registry.metrics();
    expect(exported).toMatch(/^keyspread_wal_corrupt_records_total 1$/m);
    expect(exported).toMatch(new RegExp(`^keyspread_wal_corrupt_bytes_total ${recordBytes}$`, "m"));
  });
});

describe("IngestPipeline and poison", () => {
  it("dead-letters a row whose key cannot be encoded; the rest of its segment flushes", async () => {
    const directory = await mkdtemp(join(tmpdir(), "pipeline-poison-"));
    const wal = join(directory, "wal");
    const table = await openTable();
    const { pipeline, metrics } = await openPipeline(table, wal);
    // Past the door's checks (the pipeline takes what it is given): a lone surrogate in a device id.
    await pipeline.accept(request([point("d", T0 + 1)]));
    await pipeline.accept(request([point("bad\ud800", T0 + 2), point("d", T0 + 3)]));
    await pipeline.flush();
    expect(pipeline.pendingPoints()).toBe(0);
    expect(await storedTimes(table)).toEqual([3, 1]);
    const [letter] = (await readFile(join(wal, "dead-letter.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(letter).toMatchObject({
      reason: expect.stringMatching(/row key: .*deviceId.*lone surrogate/),
      row: { tenant: "t", deviceId: "bad\ud800", points: [{ ts: T0 + 2 }] },
    });
    expect(await metrics.registry.metrics()).toMatch(/keyspread_dead_letters_total\{kind="row"\} 1/);
    expect(pipeline.takeDeadLetters()).toBe(1);
    await pipeline.close();
    expect(await segmentsIn(wal)).toHaveLength(1);
  });

  it("starts on a log that holds a poison record, dead-lettering it and storing the rest", async () => {
    const directory = await mkdtemp(join(tmpdir(), "pipeline-poison-"));
    const wal = join(directory, "wal");
    const table = await openTable();
    const first = await openPipeline(table, wal);
    await first.pipeline.close();
    // The middle body names a device with a lone surrogate: no replay can read it.
    const logged = (body: string) => encodeLoggedRequest({ format: "ndjson", body: Buffer.from(body) });
    const records = [
      logged(JSON.stringify(point("d", T0 + 1))),
      logged('{"tenant":"t","deviceId":"x\\ud800","ts":1764484000002,"metrics":{"v":1}}'),
      logged(JSON.stringify(point("d", T0 + 3))),
    ].map((payload) => Buffer.concat([recordHeader(payload), payload]));
    await mkdir(wal, { recursive: true });
    await writeFile(join(wal, "0000000000001.wal"), Buffer.concat(records));

    const second = await openPipeline(table, wal);
    await second.pipeline.close();
    expect(await storedTimes(table)).toEqual([3, 1]);
    const letters = (await readFile(join(wal, "dead-letter.jsonl"), "utf8")).trim().split("\n");
    expect(letters).toHaveLength(1);
    expect(JSON.parse(letters[0]!)).toMatchObject({
      segment: 1,
      reason: expect.stringMatching(/unreadable log record: .*deviceId.*not well-formed Unicode/),
      record: { text: expect.stringContaining("x\\ud800") },
    });
  });

  it("dead-letters a row the store keeps refusing while it takes others, and retries an outage instead", async () => {
    const directory = await mkdtemp(join(tmpdir(), "pipeline-refused-"));
    const wal = join(directory, "wal");
    const store = new MemoryStore({ name: "p" });
    const table = await SaltedTable.open(store, metricsSchema(4), { create: true });
    const { pipeline, lines } = await openPipeline(table, wal, { deadLetterAfterAttempts: 3 });
    store.faults.failWrite = (key) => (key.includes("#refused#") ? "row too large" : undefined);
    await pipeline.accept(request([point("refused", T0 + 1), point("d", T0 + 2)]));
    await pipeline.settle();
    expect(await storedTimes(table)).toEqual([2]);
    expect(pipeline.pendingPoints()).toBe(0);
    expect(lines.filter((line) => line.includes('"event":"dead-letter"'))).toHaveLength(1);
    const letter = JSON.parse((await readFile(join(wal, "dead-letter.jsonl"), "utf8")).trim());
    expect(letter).toMatchObject({
      reason: "the store refused it 3 times: row too large",
      row: { deviceId: "refused" },
    });

    // Everything refused: an outage. Nothing is dead-lettered; it is written once the store is back.
    store.faults.failWrite = () => "unavailable";
    await pipeline.accept(request([point("e", T0 + 5)]));
    await pipeline.flush();
    await expect
      .poll(() => lines.filter((line) => line.includes('"event":"store-write-retry"')).length, {
        timeout: 10_000,
      })
      .toBeGreaterThan(1);
    store.faults.failWrite = undefined;
    await pipeline.settle();
    expect(await storedTimes(table, "e")).toEqual([5]);
    expect(lines.filter((line) => line.includes('"event":"dead-letter"'))).toHaveLength(1);
    await pipeline.close();
  });
});

describe("IngestPipeline writing two tables (a live migration's dual-write)", () => {
  async function twoTables() {
    const oldStore = new MemoryStore({ name: "old" });
    const newStore = new MemoryStore({ name: "new" });
    return {
      oldStore,
      newStore,
      old: await SaltedTable.open(oldStore, metricsSchema(1), { create: true }),
      new: await SaltedTable.open(newStore, metricsSchema(16), { create: true }),
    };
  }

  it("keeps the segment while the new table refuses, writes only that side again, then lets it go", async () => {
    const directory = await mkdtemp(join(tmpdir(), "pipeline-dual-"));
    const wal = join(directory, "wal");
    const tables = await twoTables();
    const attempts = { old: 0 };
    tables.oldStore.faults.failWrite = () => {
      attempts.old++;
      return undefined;
    };
    tables.newStore.faults.failWrite = () => "new table unavailable";
    const { pipeline, lines } = await openPipeline(tables.old, wal, {
      writeTables: () => [tables.old, tables.new],
    });
    await pipeline.accept(request([point("d", T0 + 1), point("e", T0 + 2)]));
    const segment = pipeline.openSegmentId;
    await pipeline.flush();
    expect(await storedTimes(tables.old)).toEqual([1]);
    expect(await storedTimes(tables.new)).toEqual([]);
    // Not lost on either side: the acknowledged points' segment stays until the new table has them.
    expect(await segmentsIn(wal)).toContain(`${String(segment).padStart(13, "0")}.wal`);
    expect(pipeline.completeBelow()).toBe(segment);
    expect(pipeline.pendingPoints()).toBe(2);
    await expect
      .poll(() => lines.filter((line) => line.includes('"event":"store-write-retry"')).length, {
        timeout: 10_000,
      })
      .toBeGreaterThan(0);
    expect(lines.find((line) => line.includes("store-write-retry"))).toContain('"table":"memory:new"');
    const oldWrites = attempts.old;

    tables.newStore.faults.failWrite = undefined;
    await pipeline.settle();
    expect(await storedTimes(tables.new)).toEqual([1]);
    expect(await storedTimes(tables.new, "e")).toEqual([2]);
    // The old table was written once: its rows were not retried with the new table's.
    expect(attempts.old).toBe(oldWrites);
    expect(pipeline.pendingPoints()).toBe(0);
    expect(pipeline.completeBelow()).toBeGreaterThan(segment);
    await pipeline.close();
    expect(await segmentsIn(wal)).toHaveLength(1);
  });

  it("replays a segment a crash left between the two writes into both tables, each row once", async () => {
    const directory = await mkdtemp(join(tmpdir(), "pipeline-dual-crash-"));
    const wal = join(directory, "wal");
    const tables = await twoTables();
    tables.newStore.faults.failWrite = () => "down";
    const first = await openPipeline(tables.old, wal, {
      writeTables: () => [tables.old, tables.new],
      closeTimeoutMs: 0,
    });
    await first.pipeline.accept(request([0, 1, 2].map((i) => point("d", T0 + i))));
    await first.pipeline.close(); // as a crash would: the old table has the rows, the new one not
    expect(first.lines.some((line) => line.includes('"event":"left-in-log"'))).toBe(true);
    expect(await storedTimes(tables.old)).toEqual([2, 1, 0]);
    expect(await segmentsIn(wal)).toHaveLength(2);

    tables.newStore.faults.failWrite = undefined;
    const second = await openPipeline(tables.old, wal, { writeTables: () => [tables.old, tables.new] });
    await second.pipeline.close();
    for (const table of [tables.old, tables.new]) {
      expect(await storedTimes(table)).toEqual([2, 1, 0]);
      expect(await table.scan({}).toArray()).toHaveLength(1);
    }
  });

  it("stops retrying a table the phase no longer writes, and drains what was flushed before a switch", async () => {
    const directory = await mkdtemp(join(tmpdir(), "pipeline-dual-drop-"));
    const wal = join(directory, "wal");
    const tables = await twoTables();
    let writing = [tables.old, tables.new];
    tables.newStore.faults.failWrite = () => "new table broken";
    const { pipeline, lines } = await openPipeline(tables.old, wal, { writeTables: () => writing });
    await pipeline.accept(request([point("d", T0 + 1)]));
    await pipeline.flush();
    let drained = false;
    const drain = pipeline.drain().then(() => {
      drained = true;
    });
    expect(drained).toBe(false);
    // Rolled back to the old table alone: the segment no longer waits for the new one.
    writing = [tables.old];
    await drain;
    expect(lines.some((line) => line.includes('"event":"table-no-longer-written"'))).toBe(true);
    expect(pipeline.pendingPoints()).toBe(0);
    expect(await storedTimes(tables.old)).toEqual([1]);
    // A segment rotated out after the call is not waited for.
    await pipeline.accept(request([point("d", T0 + 2)]));
    await pipeline.drain();
    expect(pipeline.pendingPoints()).toBe(1);
    await pipeline.close();
  });
});

describe("IngestPipeline's pending-points cap", () => {
  it("never lets requests accepted at once take the pending points past the cap", async () => {
    const directory = await mkdtemp(join(tmpdir(), "pipeline-cap-"));
    const table = await openTable();
    const { pipeline } = await openPipeline(table, join(directory, "wal"), { maxPendingPoints: 250 });
    const requests = Array.from({ length: 8 }, (_, r) =>
      request(Array.from({ length: 100 }, (_, i) => point("d", T0 + r * 100 + i))),
    );
    const results = await Promise.allSettled(requests.map((one) => pipeline.accept(one)));
    expect(results.map((result) => result.status)).toEqual([
      "fulfilled",
      "fulfilled",
      ...Array(6).fill("rejected"),
    ]);
    const reasons = results.flatMap((result) => (result.status === "rejected" ? [result.reason] : []));
    expect(reasons.every((reason) => reason instanceof PendingPointsFull)).toBe(true);
    expect(pipeline.pendingPoints()).toBe(200);
    await pipeline.close();
    expect(await storedTimes(table)).toHaveLength(200);
  });
});

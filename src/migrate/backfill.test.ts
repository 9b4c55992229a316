import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../store/memory/memory.js";
import type { Store } from "../store/store.js";
import { SchemaMismatchError } from "../table/schema-guard.js";
import { BackfillWriteError, backfillTable, fractionOfKeySpace } from "./backfill.js";
import { readBackfillCheckpoint } from "./checkpoint.js";
import { fillSource, MIGRATIONS } from "./fixtures.testsuite.js";
import { validateMigration } from "./validate.js";

const ROWS = 500;
const checkpointIn = () => join(mkdtempSync(join(tmpdir(), "keyspread-backfill-")), "checkpoint.json");

describe.each(MIGRATIONS)("backfill $name", ({ from, to, row }) => {
  it("re-keys every row, and validate finds no difference", async () => {
    const source = new MemoryStore({ name: "old" });
    const target = new MemoryStore({ name: "new" });
    await fillSource(source, from, row, ROWS);
    const result = await backfillTable({
      source,
      sourceSchema: from,
      target,
      targetSchema: to,
      batchSize: 64,
    });
    expect(result).toMatchObject({ rowsRead: ROWS, rowsWritten: ROWS, rowsSkipped: 0, fractionDone: 1 });
    expect(target.size).toBe(ROWS + 1); // + the schema row
    const report = await validateMigration({
      source,
      sourceSchema: from,
      target,
      targetSchema: to,
      ranges: 4,
      sampleEntities: 10,
    });
    expect(report.differences).toEqual([]);
    expect(report.target).toEqual(report.source);
    expect(report.ranges.reduce((sum, r) => sum + r.target.rows, 0)).toBe(ROWS);
  });

  it("resumes after being stopped mid-way, without loss or duplicates", async () => {
    const source = new MemoryStore({ name: "old" });
    const target = new MemoryStore({ name: "new" });
    await fillSource(source, from, row, ROWS);
    const options = {
      source,
      sourceSchema: from,
      target,
      targetSchema: to,
      batchSize: 50,
      checkpointFile: checkpointIn(),
    };
    const stop = new AbortController();
    let batches = 0;
    const first = backfillTable({
      ...options,
      signal: stop.signal,
      onProgress: () => {
        if (++batches === 3) stop.abort();
      },
    });
    await expect(first).rejects.toThrow();
    expect(await readBackfillCheckpoint(options.checkpointFile)).toMatchObject({
      rowsRead: 150,
      rowsWritten: 150,
      complete: false,
    });

    const resumed = await backfillTable(options);
    expect(resumed).toMatchObject({ rowsRead: ROWS, rowsWritten: ROWS, rowsReadThisRun: ROWS - 150 });
    expect(resumed.resumedFrom).toBeInstanceOf(Buffer);
    const report = await validateMigration({ source, sourceSchema: from, target, targetSchema: to });
    expect(report.differences).toEqual([]);
    expect(report.target.rows).toBe(ROWS);
  });
});

describe("backfill", () => {
  const { from, to, row } = MIGRATIONS[0]!;

  it("stops on a failed target write and keeps the checkpoint before that batch", async () => {
    const source = new MemoryStore({ name: "s" });
    const target = new MemoryStore({ name: "target" });
    await fillSource(source, from, row, 100);
    const checkpointFile = checkpointIn();
    let writes = 0;
    target.faults.failWrite = (_key, index) => (index === 0 && ++writes === 3 ? "injected" : undefined);
    const options = { source, sourceSchema: from, target, targetSchema: to, batchSize: 20, checkpointFile };
    const error = await backfillTable(options).catch((e) => e);
    expect(error).toBeInstanceOf(BackfillWriteError);
    expect(error.failed).toEqual([expect.objectContaining({ reason: "injected" })]);
    // The schema row was write 1, batch 1 was write 2; batch 2 failed.
    expect(await readBackfillCheckpoint(checkpointFile)).toMatchObject({ rowsRead: 20, rowsWritten: 20 });
    target.faults = {};
    expect(await backfillTable(options)).toMatchObject({ rowsWritten: 100 });
    expect(
      (await validateMigration({ source, sourceSchema: from, target, targetSchema: to })).differences,
    ).toEqual([]);
  });

  it("refuses a checkpoint of another migration", async () => {
    const source = new MemoryStore({ name: "s" });
    await fillSource(source, from, row, 10);
    const checkpointFile = checkpointIn();
    await backfillTable({
      source,
      sourceSchema: from,
      target: new MemoryStore({ name: "a" }),
      targetSchema: to,
      checkpointFile,
    });
    await expect(
      backfillTable({
        source,
        sourceSchema: from,
        target: new MemoryStore({ name: "b" }),
        targetSchema: to,
        checkpointFile,
      }),
    ).rejects.toMatchObject({
      name: "CheckpointMismatchError",
      field: "target",
      recorded: "memory:a",
      wanted: "memory:b",
    });
  });

  it("refuses a source recorded with another schema, and schemas with different fields", async () => {
    const source = new MemoryStore({ name: "s" });
    await fillSource(source, to, row, 10);
    await expect(
      backfillTable({ source, sourceSchema: from, target: new MemoryStore(), targetSchema: to }),
    ).rejects.toThrow(SchemaMismatchError);
    const other = MIGRATIONS[1]!.to;
    await expect(
      backfillTable({ source, sourceSchema: to, target: new MemoryStore(), targetSchema: other }),
    ).rejects.toMatchObject({
      name: "SchemaFieldsError",
      from: to.spec.name,
      to: other.spec.name,
      onlyInSource: ["deviceId", "ts"],
      onlyInTarget: ["player", "action", "timestamp"],
    });
  });

  it("stops at a row the target schema cannot key, or records it with skipBadRows", async () => {
    const source = new MemoryStore({ name: "s" });
    const to8 = MIGRATIONS[1]!.to; // the game-studio recipe's raw fields refuse the separator
    const from8 = MIGRATIONS[1]!.from;
    await fillSource(source, from8, MIGRATIONS[1]!.row, 10);
    const target = new MemoryStore({ name: "t" });
    // A legacy row written without keyspread's checks: "_" inside a raw field cannot be re-encoded.
    await source.write([
      { type: "put", key: Buffer.from("000_player_1_a_b_c"), cells: new Map([["amount", Buffer.from("1")]]) },
    ]);
    const badKey = Buffer.from("000_player_1_a_b_c").toString("hex");
    await expect(
      backfillTable({ source, sourceSchema: from8, target, targetSchema: to8 }),
    ).rejects.toMatchObject({
      name: "BackfillRowError",
      sourceKey: badKey,
    });
    const result = await backfillTable({
      source,
      sourceSchema: from8,
      target,
      targetSchema: to8,
      skipBadRows: true,
    });
    expect(result).toMatchObject({ rowsRead: 11, rowsWritten: 10, rowsSkipped: 1 });
    expect(result.skipped[0]!.key).toBe(badKey);
  });

  it("paces by the rate limit, in batches no larger than a second's worth", async () => {
    const source = new MemoryStore({ name: "s" });
    await fillSource(source, from, row, 30);
    const seen: number[] = [];
    const result = await backfillTable({
      source,
      sourceSchema: from,
      target: new MemoryStore({ name: "t" }),
      targetSchema: to,
      rowsPerSecond: 25,
      onProgress: (progress) => seen.push(progress.rowsRead),
    });
    expect(seen).toEqual([25, 30]);
    expect(result.rowsWritten).toBe(30);
  });

  it("names a bad batch size or rate", async () => {
    const source = new MemoryStore({ name: "s" });
    const target = new MemoryStore({ name: "t" });
    await expect(
      backfillTable({ source, sourceSchema: from, target, targetSchema: to, batchSize: 0 }),
    ).rejects.toThrow("batchSize is 0; allowed: an integer > 0");
    await expect(
      backfillTable({ source, sourceSchema: from, target, targetSchema: to, rowsPerSecond: -5 }),
    ).rejects.toThrow("rowsPerSecond is -5; allowed: a number > 0");
  });

  it("estimates the share done from sampled keys", () => {
    const samples = [Buffer.from("b"), Buffer.from("d"), Buffer.from("f"), Buffer.from("h")];
    expect(fractionOfKeySpace(samples, Buffer.from("a"))).toBe(0);
    expect(fractionOfKeySpace(samples, Buffer.from("d"))).toBe(0.5);
    expect(fractionOfKeySpace(samples, Buffer.from("z"))).toBe(1);
    expect(fractionOfKeySpace([], Buffer.from("a"))).toBeUndefined();
  });
});

describe("backfill under Bigtable's batch write flow control", () => {
  it("announces flow control on every write and reports the rate the server's RateLimitInfo sets", async () => {
    const { from, to, row } = MIGRATIONS[0]!;
    const source = new MemoryStore({ name: "old" });
    const memory = new MemoryStore({ name: "new" });
    await fillSource(source, from, row, 300);
    const announced: boolean[] = [];
    // A target whose every MutateRows answer says "go at 0.5× the current rate" (capped to 0.7×).
    const target: Store = {
      ...memory,
      name: memory.name,
      write: async (mutations, options) => {
        announced.push(options?.batchWriteFlowControl === true);
        const result = await memory.write(mutations, options);
        return { ...result, flowControl: [{ type: "rate-limit", factor: 0.5, periodMs: 1_000 }] };
      },
      checkAndMutate: (mutation, condition, options) => memory.checkAndMutate(mutation, condition, options),
      get: (key, options) => memory.get(key, options),
      read: (ranges, options) => memory.read(ranges, options),
      sampleKeys: (count) => memory.sampleKeys(count),
      close: () => memory.close(),
    };
    const progress: (number | undefined)[] = [];
    const result = await backfillTable({
      source,
      sourceSchema: from,
      target,
      targetSchema: to,
      batchSize: 100,
      rowsPerSecond: 5_000,
      onProgress: (p) => progress.push(p.serverRowsPerSecond),
    });
    expect(result.rowsWritten).toBe(300);
    // The schema row is written by the table's own open; every batch of rows announces it.
    expect(announced.slice(-3)).toEqual([true, true, true]);
    // Java's rule: the first factor multiplies the initial 1,000 rows/s, capped at 0.7×.
    expect(progress[0]).toBe(700);
  });
});

import { describe, expect, it } from "vitest";
import { mountSmallFilesystem } from "../../io/small-filesystem.testsuite.js";
import type { IdempotencyRecord } from "./idempotency-journal.js";
import { IdempotencyJournal } from "./idempotency-journal.js";

const records = (from: number, count: number): IdempotencyRecord[] =>
  Array.from({ length: count }, (_, i) => ({
    key: `key-${from + i}-${"k".repeat(200)}`,
    fingerprint: "f".repeat(43),
    accepted: from + i,
    atMs: 1_764_484_000_000 + from + i,
  }));

describe("IdempotencyJournal on a disk that fills up", () => {
  it("keeps every key journaled after a write a full disk cut short, across a reopen", async (ctx) => {
    const disk = await mountSmallFilesystem(16 * 1024 * 1024);
    if (typeof disk === "string") return ctx.skip(disk);
    const location = `${disk.path}/idempotency`;
    try {
      const journal = await IdempotencyJournal.open(location);
      await journal.put(records(0, 10));
      await disk.fill(64 * 1024);
      // About 600 KB in one synced batch: LevelDB's log gets part of it, then ENOSPC.
      await expect(journal.put(records(10, 2000))).rejects.toThrow();
      await expect(journal.put(records(10, 2000))).rejects.toThrow();
      await disk.free();
      await journal.put(records(10, 2000));
      await journal.put(records(2010, 2000));
      await journal.close();
      const reopened = await IdempotencyJournal.open(location);
      const missing = records(0, 4010).filter(
        (record) => reopened.get(record.key)?.accepted !== record.accepted,
      );
      await reopened.close();
      expect(missing.map((record) => record.accepted)).toEqual([]);
    } finally {
      await disk.unmount();
    }
  });
});

/**
 * The service's recent accesses: one record per store row written or read. The most recent stay
 * in memory (bounded) for the live `/heatmap` page; optionally every record is also appended to a
 * JSONL file in the record format `keyspread heatmap` and `keyspread replay` read
 * (src/access-log/access-record.ts) through the shared file sink (bounded queue, rotation).
 */

import type { AccessOp, AccessRecord } from "../../access-log/access-record.js";
import { FileAccessLogSink } from "../../access-log/file-sink.js";

export interface AccessEntry {
  key: Buffer;
  op: AccessOp;
  bytes: number;
  latencyMs?: number;
}

export class RecentAccesses {
  /** Ring of the latest records: `recent[next]` is the oldest once full. */
  private readonly recent: AccessRecord[] = [];
  private next = 0;

  private constructor(
    private readonly file: FileAccessLogSink | undefined,
    private readonly keepRecent: number,
  ) {}

  static async open(path: string | undefined, keepRecent = 100_000): Promise<RecentAccesses> {
    return new RecentAccesses(
      path === undefined ? undefined : await FileAccessLogSink.open(path),
      keepRecent,
    );
  }

  record(tsMs: number, entries: readonly AccessEntry[]): void {
    if (entries.length === 0) return;
    for (const entry of entries) {
      const record: AccessRecord = { tsMs, key: entry.key, op: entry.op, bytes: entry.bytes };
      if (entry.latencyMs !== undefined) record.latencyMs = entry.latencyMs;
      if (this.recent.length < this.keepRecent) this.recent.push(record);
      else this.recent[this.next] = record;
      this.next = (this.next + 1) % this.keepRecent;
      this.file?.write(record);
    }
  }

  /** The kept records, oldest first. */
  recentRecords(): AccessRecord[] {
    return this.recent.length < this.keepRecent
      ? [...this.recent]
      : [...this.recent.slice(this.next), ...this.recent.slice(0, this.next)];
  }

  close(): Promise<void> {
    return this.file?.close() ?? Promise.resolve();
  }
}

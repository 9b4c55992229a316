/**
 * The service's access log: one record per store row written or read. Optionally appended to a
 * JSONL file in the record format `keyspread heatmap` reads (src/viz/input/access-record.ts):
 * `{ts, key, op, bytes, latencyMs}`, keys as text or `hex:…`, one write per flush/read. The most
 * recent records also stay in memory (bounded) for the live `/heatmap` page.
 */
import { createWriteStream, type WriteStream } from "node:fs";
import type { AccessOp, AccessRecord } from "../viz/input/access-record.js";
import { displayKey } from "../viz/input/key-text.js";

export interface AccessEntry {
  key: Buffer;
  op: AccessOp;
  bytes: number;
  latencyMs?: number;
}

export class AccessLog {
  private readonly stream: WriteStream | undefined;
  /** Ring of the latest records: `recent[next]` is the oldest once full. */
  private readonly recent: AccessRecord[] = [];
  private next = 0;

  constructor(
    readonly path: string | undefined,
    private readonly keepRecent = 100_000,
  ) {
    this.stream = path === undefined ? undefined : createWriteStream(path, { flags: "a" });
  }

  record(tsMs: number, entries: readonly AccessEntry[]): void {
    if (entries.length === 0) return;
    for (const entry of entries) {
      const record: AccessRecord = { tsMs, key: entry.key, op: entry.op, bytes: entry.bytes };
      if (entry.latencyMs !== undefined) record.latencyMs = entry.latencyMs;
      if (this.recent.length < this.keepRecent) this.recent.push(record);
      else this.recent[this.next] = record;
      this.next = (this.next + 1) % this.keepRecent;
    }
    if (this.stream === undefined) return;
    let text = "";
    for (const entry of entries) {
      const latency = entry.latencyMs === undefined ? "" : `,"latencyMs":${entry.latencyMs}`;
      text += `{"ts":${tsMs},"key":${JSON.stringify(displayKey(entry.key))},"op":"${entry.op}","bytes":${entry.bytes}${latency}}\n`;
    }
    this.stream.write(text);
  }

  /** The kept records, oldest first. */
  recentRecords(): AccessRecord[] {
    return this.recent.length < this.keepRecent
      ? [...this.recent]
      : [...this.recent.slice(this.next), ...this.recent.slice(0, this.next)];
  }

  close(): Promise<void> {
    const stream = this.stream;
    if (stream === undefined) return Promise.resolve();
    return new Promise((resolve, reject) =>
      stream.end((error?: Error | null) => (error ? reject(error) : resolve())),
    );
  }
}

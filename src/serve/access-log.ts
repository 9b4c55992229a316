/**
 * The service's access log: one JSON line per store row written or read, in the record format
 * `keyspread heatmap` reads (src/viz/access-record.ts): `{ts, key, op, bytes, latencyMs}`, keys as
 * text or `hex:…`. Lines are buffered per flush/read and written through one append stream.
 */
import { createWriteStream, type WriteStream } from "node:fs";
import { displayKey } from "../viz/key-text.js";
import type { AccessOp } from "../viz/matrix.js";

export interface AccessEntry {
  key: Buffer;
  op: AccessOp;
  bytes: number;
  latencyMs?: number;
}

export class AccessLog {
  private readonly stream: WriteStream;

  constructor(readonly path: string) {
    this.stream = createWriteStream(path, { flags: "a" });
  }

  record(tsMs: number, entries: readonly AccessEntry[]): void {
    if (entries.length === 0) return;
    let text = "";
    for (const entry of entries) {
      const latency = entry.latencyMs === undefined ? "" : `,"latencyMs":${entry.latencyMs}`;
      text += `{"ts":${tsMs},"key":${JSON.stringify(displayKey(entry.key))},"op":"${entry.op}","bytes":${entry.bytes}${latency}}\n`;
    }
    this.stream.write(text);
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) =>
      this.stream.end((error?: Error | null) => (error ? reject(error) : resolve())),
    );
  }
}

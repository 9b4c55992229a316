/**
 * Where points the store will not take go instead of blocking every flush behind them: a JSONL
 * file (`<wal>/dead-letter.jsonl`), appended and fsynced before the log segment that held them is
 * deleted, one line per refused row or unreadable log record, with the reason. Nothing is dropped
 * silently; an operator can fix and re-send the points from here.
 */
import { isUtf8 } from "node:buffer";
import { open } from "node:fs/promises";
import { dirname } from "node:path";
import { syncDirectory } from "../../io/sync-directory.js";
import type { MetricPoint } from "./points/point.js";

export type DeadLetter =
  | {
      segment: number;
      reason: string;
      /** The table (store) that refused it: during a migration, the other table may have taken it. */
      table: string;
      /** A row the store refused (or whose key could not be encoded), with its points. */
      row: { tenant: string; deviceId: string; interval: number; points: readonly MetricPoint[] };
    }
  | {
      segment: number;
      reason: string;
      /** A log record that could not be read back into points; the payload as text, or base64 when not UTF-8. */
      record: { text?: string; base64?: string };
    };

export function recordLetter(segment: number, reason: string, payload: Buffer): DeadLetter {
  const record = isUtf8(payload)
    ? { text: payload.toString("utf8") }
    : { base64: payload.toString("base64") };
  return { segment, reason, record };
}

export class DeadLetterFile {
  constructor(readonly path: string) {}

  /**
   * Appends the letters and fsyncs the file; resolves once they survive a power loss. An append
   * that fails (a full disk) is cut off the file again, so its retry never follows half a line.
   */
  async append(letters: readonly DeadLetter[], nowMs = Date.now()): Promise<void> {
    if (letters.length === 0) return;
    const at = new Date(nowMs).toISOString();
    const text = letters.map((letter) => `${JSON.stringify({ at, ...letter })}\n`).join("");
    const file = await open(this.path, "a");
    try {
      const { size } = await file.stat();
      try {
        await file.writeFile(text);
        await file.datasync();
      } catch (error) {
        await file.truncate(size).catch(() => {});
        throw error;
      }
    } finally {
      await file.close();
    }
    syncDirectory(dirname(this.path));
  }
}

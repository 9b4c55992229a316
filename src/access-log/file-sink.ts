/**
 * An access log on disk: JSONL lines appended by a background flush, so recording an operation only
 * queues it. The queue is bounded — when the disk cannot keep up, records are dropped and counted
 * rather than slowing the app or growing its memory — and the file rotates at a size
 * (`access.jsonl` → `access.jsonl.1` → … up to `maxFiles`).
 */
import { createWriteStream, type WriteStream } from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import { formatAccessLine } from "./access-line.js";
import type { AccessRecord } from "./access-record.js";
import type { AccessLogSink } from "./sink.js";

export interface FileAccessLogSinkOptions {
  /** Records waiting for the disk at most; beyond them new records are dropped (default 100,000). */
  queueLimit?: number;
  /** Rotate when the file reaches this size (default 256 MB). */
  maxBytes?: number;
  /** Rotated files kept besides the live one (default 4). */
  maxFiles?: number;
}

export interface FileAccessLogSinkStats {
  written: number;
  /** Records not written: the queue was full, the sink closed, or the disk refused them. */
  dropped: number;
  rotations: number;
  /** The last write error (a full disk, say): the app goes on, the log loses those records. */
  lastError?: string;
  /** Its system error code, when it has one (`ENOSPC`). */
  lastErrorCode?: string;
}

const FLUSH_EVERY_MS = 100;
const LINES_PER_WRITE = 2000;

export class FileAccessLogSink implements AccessLogSink {
  private queue: AccessRecord[] = [];
  private stream: WriteStream | undefined;
  private bytes = 0;
  private flushing: Promise<void> | undefined;
  private closed = false;
  private readonly timer: NodeJS.Timeout;
  private readonly counts: FileAccessLogSinkStats = { written: 0, dropped: 0, rotations: 0 };
  private readonly queueLimit: number;
  private readonly maxBytes: number;
  private readonly maxFiles: number;

  private constructor(
    readonly path: string,
    startBytes: number,
    options: FileAccessLogSinkOptions,
  ) {
    this.queueLimit = options.queueLimit ?? 100_000;
    this.maxBytes = options.maxBytes ?? 256e6;
    this.maxFiles = options.maxFiles ?? 4;
    this.bytes = startBytes;
    this.stream = createWriteStream(path, { flags: "a" });
    // Errors surface through the write callbacks (counted); the stream's own event must not throw.
    this.stream.on("error", () => {});
    this.timer = setInterval(() => void this.flush(), FLUSH_EVERY_MS);
    // A log must not keep the app's process alive.
    this.timer.unref();
  }

  /** Opens (appending to) `path`; its current size counts towards rotation. */
  static async open(path: string, options: FileAccessLogSinkOptions = {}): Promise<FileAccessLogSink> {
    const size = await stat(path).then(
      (stats) => stats.size,
      () => 0,
    );
    return new FileAccessLogSink(path, size, options);
  }

  write(record: AccessRecord): void {
    if (this.closed || this.queue.length >= this.queueLimit) {
      this.counts.dropped++;
      return;
    }
    this.queue.push(record);
  }

  get stats(): FileAccessLogSinkStats {
    return { ...this.counts };
  }

  /** Writes what is queued (also done every 100 ms in the background). */
  flush(): Promise<void> {
    this.flushing ??= this.drain().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.flush();
    const stream = this.stream;
    this.stream = undefined;
    if (stream)
      await new Promise<void>((resolve, reject) =>
        stream.end((error?: Error | null) => (error ? reject(error) : resolve())),
      );
  }

  private async drain(): Promise<void> {
    for (let stream = this.stream; this.queue.length > 0 && stream; stream = this.stream) {
      const batch = this.queue.splice(0, LINES_PER_WRITE);
      try {
        await this.append(stream, batch.map(formatAccessLine).join(""));
        this.counts.written += batch.length;
        if (this.bytes >= this.maxBytes) await this.rotate(stream);
      } catch (error) {
        // The log is the app's helper, never its failure: count what is lost and carry on.
        this.counts.dropped += batch.length;
        this.counts.lastError = (error as Error).message;
        const { code } = error as NodeJS.ErrnoException;
        if (code === undefined) delete this.counts.lastErrorCode;
        else this.counts.lastErrorCode = code;
        this.reopen();
      }
    }
  }

  /** A fresh stream after a failed write (a write stream that erred stays broken). */
  private reopen(): void {
    this.stream?.destroy();
    this.stream = this.closed ? undefined : createWriteStream(this.path, { flags: "a" });
    this.stream?.on("error", () => {});
  }

  private append(stream: WriteStream, text: string): Promise<void> {
    this.bytes += Buffer.byteLength(text);
    return new Promise((resolve, reject) => {
      stream.write(text, (error) => (error ? reject(error) : resolve()));
    });
  }

  private async rotate(stream: WriteStream): Promise<void> {
    await new Promise<void>((resolve) => stream.end(resolve));
    await rm(`${this.path}.${this.maxFiles}`, { force: true });
    for (let index = this.maxFiles - 1; index >= 1; index--) {
      await rename(`${this.path}.${index}`, `${this.path}.${index + 1}`).catch(() => {});
    }
    await rename(this.path, `${this.path}.1`);
    this.stream = createWriteStream(this.path, { flags: "a" });
    this.stream.on("error", () => {});
    this.bytes = 0;
    this.counts.rotations++;
  }
}

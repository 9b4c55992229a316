/**
 * The write-ahead log that lets the service acknowledge a point long before its interval is
 * flushed, without losing it to a kill -9. Each accepted request body is appended to the current
 * segment file; appends are group-committed (one writev + fdatasync for everything queued while
 * the previous sync ran) and a request is acknowledged only after the sync that covers it.
 *
 * A segment holds exactly the points of one flush: the flusher rotates to a new segment, writes the
 * old segment's rows to the store, and only then deletes its file. After a crash, every remaining
 * segment is replayed into the same rows (the segment id is part of the row key), so a replay of a
 * segment that had in fact been written just overwrites identical rows.
 *
 * Record: u32 LE payload length, u32 LE CRC-32 of the payload, payload. A torn record at the tail
 * (the process died mid-append, before its ack) is ignored on replay.
 */
import { closeSync, fdatasyncSync, openSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { mkdir, open, readdir, readFile, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { crc32 } from "node:zlib";
import { writeFileAtomically } from "../io/write-file-atomically.js";

const SUFFIX = ".wal";
const HEADER_BYTES = 8;
const OWNER_FILE = "owner.pid";
/** Names the table the log's points belong to; written once, checked on every open. */
const TARGET_FILE = "target";

export interface RecoveredSegment {
  id: number;
  payloads: Buffer[];
  /** Bytes after the last whole record (an append cut short by a crash). */
  tornBytes: number;
}

interface PendingAppend {
  chunks: Buffer[];
  resolve: () => void;
  reject: (error: Error) => void;
}

/** One segment file being appended to. */
export class WalSegment {
  private queue: PendingAppend[] = [];
  private syncing: Promise<void> | undefined;
  private failure: Error | undefined;

  constructor(
    readonly id: number,
    readonly path: string,
    private readonly file: FileHandle,
  ) {}

  /** Resolves once the payload is on disk (fdatasync). */
  append(payload: Buffer): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const header = Buffer.allocUnsafe(HEADER_BYTES);
    header.writeUInt32LE(payload.length, 0);
    header.writeUInt32LE(crc32(payload), 4);
    return new Promise((resolve, reject) => {
      this.queue.push({ chunks: [header, payload], resolve, reject });
      this.syncing ??= this.commitLoop();
    });
  }

  /** Waits for every queued append, then closes the file. */
  async close(): Promise<void> {
    await this.syncing;
    await this.file.close();
  }

  private async commitLoop(): Promise<void> {
    while (this.queue.length > 0) {
      const group = this.queue;
      this.queue = [];
      try {
        await this.file.writev(group.flatMap((append) => append.chunks));
        await this.file.datasync();
        for (const append of group) append.resolve();
      } catch (error) {
        // A failed sync leaves the file's tail unknown: refuse everything from here on.
        this.failure = new Error(`write-ahead log ${this.path}: ${(error as Error).message}`, {
          cause: error,
        });
        for (const append of [...group, ...this.queue]) append.reject(this.failure);
        this.queue = [];
      }
    }
    this.syncing = undefined;
  }
}

export class WriteAheadLog {
  private constructor(readonly directory: string) {}

  /**
   * Opens the log directory and reads back every segment left from earlier runs, oldest first.
   * The directory is claimed for this process (`owner.pid`): two services replaying and deleting
   * each other's segments would lose points. A claim whose process is gone (a kill -9) is taken over.
   * `target` names the table the points go to: a log left by a service on another table (say,
   * another store kind sharing the directory) is refused, never replayed there and deleted.
   */
  static async open(
    directory: string,
    target: string,
  ): Promise<{ wal: WriteAheadLog; recovered: RecoveredSegment[] }> {
    await mkdir(directory, { recursive: true });
    await claim(join(directory, OWNER_FILE));
    await checkTarget(join(directory, TARGET_FILE), target);
    const ids = (await readdir(directory))
      .filter((name) => name.endsWith(SUFFIX) && /^\d+$/.test(name.slice(0, -SUFFIX.length)))
      .map((name) => Number(name.slice(0, -SUFFIX.length)))
      .sort((a, b) => a - b);
    const wal = new WriteAheadLog(directory);
    const recovered: RecoveredSegment[] = [];
    for (const id of ids) recovered.push({ id, ...parseSegment(await readFile(wal.pathOf(id))) });
    return { wal, recovered };
  }

  pathOf(id: number): string {
    return join(this.directory, `${String(id).padStart(13, "0")}${SUFFIX}`);
  }

  /** Creates segment `id` and makes its directory entry durable before anything is acknowledged in it. */
  async createSegment(id: number): Promise<WalSegment> {
    const path = this.pathOf(id);
    const file = await open(path, "wx");
    const directory = openSync(this.directory, "r");
    try {
      fdatasyncSync(directory);
    } finally {
      closeSync(directory);
    }
    return new WalSegment(id, path, file);
  }

  /** Gives up the directory's claim (a clean shutdown). */
  async release(): Promise<void> {
    await unlink(join(this.directory, OWNER_FILE)).catch(() => {});
  }

  async removeSegment(id: number): Promise<void> {
    await unlink(this.pathOf(id));
  }
}

export function parseSegment(bytes: Buffer): { payloads: Buffer[]; tornBytes: number } {
  const payloads: Buffer[] = [];
  let at = 0;
  while (at + HEADER_BYTES <= bytes.length) {
    const length = bytes.readUInt32LE(at);
    const end = at + HEADER_BYTES + length;
    if (end > bytes.length) break;
    const payload = bytes.subarray(at + HEADER_BYTES, end);
    if (crc32(payload) !== bytes.readUInt32LE(at + 4)) break;
    payloads.push(payload);
    at = end;
  }
  return { payloads, tornBytes: bytes.length - at };
}

async function claim(ownerFile: string): Promise<void> {
  const owner = Number((await readFile(ownerFile, "utf8").catch(() => "")).trim());
  if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
    throw new Error(
      `write-ahead log ${dirname(ownerFile)} is in use by process ${owner}; give each service its own`,
    );
  }
  await writeFile(ownerFile, `${process.pid}\n`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function checkTarget(file: string, target: string): Promise<void> {
  const recorded = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (recorded === undefined) {
    await writeFileAtomically(file, target, { durable: true });
  } else if (recorded !== target) {
    throw new Error(
      `write-ahead log ${dirname(file)} holds points for ${recorded}, not ${target}; ` +
        "give this service its own --wal directory (replaying it here would move acknowledged points to the wrong table)",
    );
  }
}

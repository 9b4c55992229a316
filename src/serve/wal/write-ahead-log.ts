/**
 * The write-ahead log that lets the service acknowledge a point long before its interval is
 * flushed, without losing it to a crash. Each accepted request is appended to the current segment
 * file; appends are group-committed (one positioned writev + fdatasync for everything queued while
 * the previous sync ran) and a request is acknowledged only after the sync that covers it.
 *
 * A failed commit (disk full, I/O error) is cut off the file again (ftruncate to the last
 * acknowledged byte, then fdatasync): a request answered 503 never comes back in a replay. If even
 * that fails, the segment refuses every later append and the pipeline moves to a new one.
 *
 * A segment holds exactly the points of one flush: the flusher rotates to a new segment, writes the
 * old segment's rows to the store durably, and only then deletes its file. After a crash, every
 * remaining segment is replayed into the same rows (the segment id is part of the row key), so a
 * replay of a segment that had in fact been written just overwrites identical rows. Framing and
 * checksums: `wal-record.ts`.
 */
import type { FileHandle } from "node:fs/promises";
import { mkdir, open, readdir, readFile, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { syncDirectory } from "../../io/sync-directory.js";
import { writeFileAtomically } from "../../io/write-file-atomically.js";
import { IdempotencyJournal } from "./idempotency-journal.js";
import { type CorruptRange, parseSegment, recordHeader } from "./wal-record.js";

const SUFFIX = ".wal";
/** Which process holds the directory (for the message a second service gets). */
const OWNER_FILE = "owner.pid";
/** Names the table the log's points belong to; written once, checked on every open. */
const TARGET_FILE = "target";
const JOURNAL_DIRECTORY = "idempotency";
const LOCK_DIRECTORY = "lock";

export interface RecoveredSegment {
  id: number;
  payloads: Buffer[];
  /** Bytes after the last whole record (an append cut short by a crash): dropped silently. */
  tornBytes: number;
  /** Damaged ranges in the middle of the segment: skipped, and reported by the caller. */
  corrupt: CorruptRange[];
}

/** Test seam: faults the log writer meets, as a full or failing disk would produce them. */
export interface WalFaults {
  /**
   * Called before each group commit with its size in bytes. Returning an error fails the commit
   * after `written` of its bytes reached the file (a disk that filled up mid-write).
   */
  commit?: (bytes: number) => { error: NodeJS.ErrnoException; written?: number } | undefined;
  /** Called before a flushed segment's file is deleted; returning an error leaves it there (as a crash at that moment). */
  remove?: (id: number) => NodeJS.ErrnoException | undefined;
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
  /** Set once the file's tail can no longer be trusted: every later append is refused. */
  private failure: Error | undefined;
  /** Bytes acknowledged so far: the file never keeps more than this after a failed commit. */
  private length = 0;

  constructor(
    readonly id: number,
    readonly path: string,
    private readonly file: FileHandle,
    private readonly faults: WalFaults = {},
  ) {}

  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** Resolves once the payload is on disk (fdatasync); rejects when it is not (and it will not replay). */
  append(payload: Buffer): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ chunks: [recordHeader(payload), payload], resolve, reject });
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
      const chunks = group.flatMap((append) => append.chunks);
      try {
        const size = await this.write(chunks);
        await this.file.datasync();
        this.length += size;
        for (const append of group) append.resolve();
      } catch (error) {
        const cause = new Error(`write-ahead log ${this.path}: ${(error as Error).message}`, {
          cause: error,
        });
        // Cut first: when a caller hears "refused", the refused bytes are already off the file.
        await this.cutTail(cause);
        for (const append of group) append.reject(this.failure ?? cause);
      }
    }
    this.syncing = undefined;
  }

  /** Writes the chunks at the end of the acknowledged bytes; returns their size. */
  private async write(chunks: Buffer[]): Promise<number> {
    const size = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    const fault = this.faults.commit?.(size);
    if (fault) {
      const written = Math.min(size, fault.written ?? 0);
      if (written > 0)
        await this.file.write(Buffer.concat(chunks).subarray(0, written), 0, written, this.length);
      throw fault.error;
    }
    let done = (await this.file.writev(chunks, this.length)).bytesWritten;
    // writev may stop short (a filling disk); the rest goes in plain writes, which then fail loudly.
    if (done < size) {
      const rest = Buffer.concat(chunks).subarray(done);
      for (let at = 0; at < rest.length; ) {
        const { bytesWritten } = await this.file.write(rest, at, rest.length - at, this.length + done);
        at += bytesWritten;
        done += bytesWritten;
      }
    }
    return size;
  }

  /** Drops whatever a failed commit left after the acknowledged bytes; if that fails too, gives up the segment. */
  private async cutTail(cause: Error): Promise<void> {
    try {
      await this.file.truncate(this.length);
      await this.file.datasync();
    } catch (error) {
      this.failure = new Error(`${cause.message}; cutting off the failed append failed too: ${error}`, {
        cause,
      });
      for (const append of this.queue) append.reject(this.failure);
      this.queue = [];
    }
  }
}

export class WriteAheadLog {
  private constructor(
    readonly directory: string,
    /** Held open for its lock: the claim on the directory (see `claim`). */
    private readonly lock: ClassicLevel,
    /** Idempotency-Keys of flushed segments. */
    readonly journal: IdempotencyJournal,
    private readonly faults: WalFaults,
  ) {}

  /**
   * Opens the log directory and lists the segments left from earlier runs (`leftover`, oldest
   * first; `readSegment` reads one back, so a restart holds one of them in memory at a time).
   * The directory is claimed for this process first: two services replaying and deleting each
   * other's segments would lose points. `target` names the table the points go
   * to: a log left by a service on another table is refused, never replayed there and deleted.
   */
  static async open(
    directory: string,
    target: string,
    options: { faults?: WalFaults } = {},
  ): Promise<{ wal: WriteAheadLog; leftover: number[] }> {
    await mkdir(directory, { recursive: true });
    const lock = await claim(directory);
    let journal: IdempotencyJournal | undefined;
    try {
      // A service of an earlier version claimed the directory by the journal's lock alone.
      journal = await inUseIfLocked(directory, IdempotencyJournal.open(join(directory, JOURNAL_DIRECTORY)));
      await checkTarget(join(directory, TARGET_FILE), target);
      const leftover = (await readdir(directory))
        .filter((name) => name.endsWith(SUFFIX) && /^\d+$/.test(name.slice(0, -SUFFIX.length)))
        .map((name) => Number(name.slice(0, -SUFFIX.length)))
        .sort((a, b) => a - b);
      return { wal: new WriteAheadLog(directory, lock, journal, options.faults ?? {}), leftover };
    } catch (error) {
      await journal?.close();
      await lock.close();
      throw error;
    }
  }

  pathOf(id: number): string {
    return join(this.directory, `${String(id).padStart(13, "0")}${SUFFIX}`);
  }

  /** Reads a segment left behind back into its records. */
  async readSegment(id: number): Promise<RecoveredSegment> {
    return { id, ...parseSegment(await readFile(this.pathOf(id))) };
  }

  /** Creates segment `id` and makes its directory entry durable before anything is acknowledged in it. */
  async createSegment(id: number): Promise<WalSegment> {
    const path = this.pathOf(id);
    const file = await open(path, "wx");
    syncDirectory(this.directory);
    return new WalSegment(id, path, file, this.faults);
  }

  /** Deletes a flushed segment and makes the deletion durable: a segment back after a power loss would be replayed. */
  async removeSegment(id: number): Promise<void> {
    const fault = this.faults.remove?.(id);
    if (fault) throw fault;
    await unlink(this.pathOf(id)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
    syncDirectory(this.directory);
  }

  /** Gives up the directory's claim (a clean shutdown). */
  async release(): Promise<void> {
    await unlink(join(this.directory, OWNER_FILE)).catch(() => {});
    await this.journal.close();
    await this.lock.close();
  }
}

/**
 * Claims the directory: LevelDB holds an fcntl lock on its directory while open, released by the
 * kernel when the process dies (kill -9 included), so opening an (empty) LevelDB at `<wal>/lock`
 * is an atomic claim that never goes stale. The journal is not the claim: it is closed and
 * reopened after a failed write, and the claim must not lapse meanwhile.
 */
async function claim(directory: string): Promise<ClassicLevel> {
  const lock = new ClassicLevel(join(directory, LOCK_DIRECTORY));
  await inUseIfLocked(directory, lock.open());
  await writeFile(join(directory, OWNER_FILE), `${process.pid}\n`);
  return lock;
}

/** What `opening` resolves to, or, when another process holds its LevelDB lock, an error naming that process. */
async function inUseIfLocked<T>(directory: string, opening: Promise<T>): Promise<T> {
  try {
    return await opening;
  } catch (error) {
    if ((error as { cause?: { code?: string } }).cause?.code !== "LEVEL_LOCKED") throw error;
    const owner = (await readFile(join(directory, OWNER_FILE), "utf8").catch(() => "")).trim();
    throw new Error(
      `write-ahead log ${directory} is in use by ${/^\d+$/.test(owner) ? `process ${owner}` : "another service"}; give each service its own`,
      { cause: error },
    );
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
      `write-ahead log ${file.slice(0, -TARGET_FILE.length - 1)} holds points for ${recorded}, not ${target}; ` +
        "give this service its own --wal directory (replaying it here would move acknowledged points to the wrong table)",
    );
  }
}

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
import { dirname, join } from "node:path";
import { ClassicLevel } from "classic-level";
import { IdempotencyJournal } from "./idempotency-journal.js";
import { nodeWalFileSystem, type WalFile, type WalFileSystem } from "./wal-file-system.js";
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
    private readonly file: WalFile,
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
    let done = await this.file.writev(chunks, this.length);
    // writev may stop short (a filling disk); the rest goes in plain writes, which then fail loudly.
    if (done < size) {
      const rest = Buffer.concat(chunks).subarray(done);
      for (let at = 0; at < rest.length; ) {
        const written = await this.file.write(rest.subarray(at), this.length + done);
        at += written;
        done += written;
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

/** The log directory is claimed by another live process: `ownerPid`, when its owner file names one. */
export class WalDirectoryInUse extends Error {
  override readonly name = "WalDirectoryInUse";

  constructor(
    readonly directory: string,
    readonly ownerPid: number | undefined,
    options: ErrorOptions,
  ) {
    super(
      `write-ahead log ${directory} is in use by ${ownerPid === undefined ? "another service" : `process ${ownerPid}`}; give each service its own`,
      options,
    );
  }
}

/** The log directory holds points for the table `recorded`, not for `target`, the one opening it. */
export class WalOfAnotherTable extends Error {
  override readonly name = "WalOfAnotherTable";

  constructor(
    readonly directory: string,
    readonly recorded: string,
    readonly target: string,
  ) {
    super(
      `write-ahead log ${directory} holds points for ${recorded}, not ${target}; ` +
        "give this service its own --wal directory (replaying it here would move acknowledged points to the wrong table)",
    );
  }
}

export class WriteAheadLog {
  private constructor(
    readonly directory: string,
    /** Held open for its lock: the claim on the directory (see `claim`). */
    private readonly lock: ClassicLevel,
    /** Idempotency-Keys of flushed segments. */
    readonly journal: IdempotencyJournal,
    private readonly files: WalFileSystem,
  ) {}

  /**
   * Opens the log directory and lists the segments left from earlier runs (`leftover`, oldest
   * first; `readSegment` reads one back, so a restart holds one of them in memory at a time).
   * The directory is claimed for this process first: two services replaying and deleting each
   * other's segments would lose points. `target` names the table the points go
   * to: a log left by a service on another table is refused, never replayed there and deleted.
   * Segment files and the directory's small files go through `files` (the journal and the claim
   * are LevelDB's own).
   */
  static async open(
    directory: string,
    target: string,
    files: WalFileSystem = nodeWalFileSystem,
  ): Promise<{ wal: WriteAheadLog; leftover: number[] }> {
    await files.makeDirectory(directory);
    const lock = await claim(directory, files);
    let journal: IdempotencyJournal | undefined;
    try {
      // A service of an earlier version claimed the directory by the journal's lock alone.
      journal = await inUseIfLocked(
        directory,
        IdempotencyJournal.open(join(directory, JOURNAL_DIRECTORY)),
        files,
      );
      await checkTarget(join(directory, TARGET_FILE), target, files);
      const leftover = (await files.listDirectory(directory))
        .filter((name) => name.endsWith(SUFFIX) && /^\d+$/.test(name.slice(0, -SUFFIX.length)))
        .map((name) => Number(name.slice(0, -SUFFIX.length)))
        .sort((a, b) => a - b);
      return { wal: new WriteAheadLog(directory, lock, journal, files), leftover };
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
    return { id, ...parseSegment(await this.files.readFile(this.pathOf(id))) };
  }

  /** Creates segment `id` and makes its directory entry durable before anything is acknowledged in it. */
  async createSegment(id: number): Promise<WalSegment> {
    const path = this.pathOf(id);
    const file = await this.files.createFile(path);
    this.files.syncDirectory(this.directory);
    return new WalSegment(id, path, file);
  }

  /** Deletes a flushed segment and makes the deletion durable: a segment back after a power loss would be replayed. */
  async removeSegment(id: number): Promise<void> {
    await this.files.removeFile(this.pathOf(id)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
    this.files.syncDirectory(this.directory);
  }

  /** Gives up the directory's claim (a clean shutdown). */
  async release(): Promise<void> {
    await this.files.removeFile(join(this.directory, OWNER_FILE)).catch(() => {});
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
async function claim(directory: string, files: WalFileSystem): Promise<ClassicLevel> {
  const lock = new ClassicLevel(join(directory, LOCK_DIRECTORY));
  await inUseIfLocked(directory, lock.open(), files);
  await files.writeFile(join(directory, OWNER_FILE), `${process.pid}\n`);
  return lock;
}

/** What `opening` resolves to, or, when another process holds its LevelDB lock, an error naming that process. */
async function inUseIfLocked<T>(directory: string, opening: Promise<T>, files: WalFileSystem): Promise<T> {
  try {
    return await opening;
  } catch (error) {
    if ((error as { cause?: { code?: string } }).cause?.code !== "LEVEL_LOCKED") throw error;
    const owner = String(await files.readFile(join(directory, OWNER_FILE)).catch(() => "")).trim();
    throw new WalDirectoryInUse(directory, /^\d+$/.test(owner) ? Number(owner) : undefined, { cause: error });
  }
}

async function checkTarget(file: string, target: string, files: WalFileSystem): Promise<void> {
  const recorded = await files.readFile(file).then(String, (error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (recorded === undefined) {
    await files.replaceFileDurably(file, target);
  } else if (recorded !== target) {
    throw new WalOfAnotherTable(dirname(file), recorded, target);
  }
}

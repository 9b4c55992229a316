/**
 * The pipeline's view of the write-ahead log: the segment requests are appended to now (with the
 * points its records hold), rotation to a new segment at each flush, the segments rotated out and
 * not yet written everywhere, and the replay of a segment a previous run left behind.
 *
 * Segment ids are epoch milliseconds, strictly increasing across restarts: the newest segment file
 * is never deleted (only older ones, after their flush), so a restarted service always knows the
 * last id even if the clock went back. Ids are this process's own: other replicas may use the same
 * ones, and the row key's `writer` (the log directory's `replicaId`) keeps their rows apart.
 */
import { readOrCreateReplicaId } from "../replicas/replica-id.js";
import type { IdempotencyRecord } from "../wal/idempotency-journal.js";
import { type RecoveredSegment, type WalSegment, WriteAheadLog } from "../wal/write-ahead-log.js";
import { type DeadLetter, recordLetter } from "./dead-letter.js";
import { decodeLoggedRequest, type LoggedRequest } from "./logged-request.js";
import { parseIngestBuffer } from "./points/ingest-body.js";
import { IntervalBuffer } from "./points/interval-buffer.js";
import type { MetricPoint } from "./points/point.js";

/** The segment being appended to and the points its records hold. */
export interface OpenSegment {
  segment: WalSegment;
  buffer: IntervalBuffer;
  /** Appends not settled yet: the flush waits for them before writing the buffer. */
  appends: Set<Promise<void>>;
  keys: IdempotencyRecord[];
}

/** A segment left behind, read back into points. */
export interface ReplayedSegment {
  buffer: IntervalBuffer;
  /** Its requests' Idempotency-Keys (each replayed once). */
  keys: IdempotencyRecord[];
  /** Its records that could not be read back. */
  letters: DeadLetter[];
  /** Requests skipped because a request with their key was replayed before (logged twice). */
  duplicates: number;
  /** Requests skipped because another replica took their Idempotency-Key over (and stored them). */
  takenOver: number;
}

/** A segment rotated out of the log's head and not yet written everywhere; `done` settles when it is (or is left in the log). */
interface UnfinishedSegment {
  done: Promise<void>;
  settle: () => void;
}

export class SegmentLog {
  private current: OpenSegment;
  /** Segments rotated out and not yet written to every table, by id. */
  private readonly unfinished = new Map<number, UnfinishedSegment>();
  /** The first segment this process opened: every later one is flushed by it. */
  readonly firstSegmentId: number;

  private constructor(
    readonly wal: WriteAheadLog,
    /** The writer id of this log's rows (kept in the log directory). */
    readonly replicaId: string,
    segment: WalSegment,
    private readonly intervalMs: number,
    private readonly now: () => number,
  ) {
    this.current = this.openSegment(segment);
    this.firstSegmentId = segment.id;
  }

  /**
   * Opens the log and a new segment after those a previous run left behind (`leftover`, oldest
   * first). `now` is the rotation clock segment ids come from (a test seam).
   */
  static async open(
    directory: string,
    target: string,
    intervalMs: number,
    now: () => number = Date.now,
  ): Promise<{ log: SegmentLog; leftover: readonly number[] }> {
    const { wal, leftover } = await WriteAheadLog.open(directory, target);
    try {
      const replicaId = await readOrCreateReplicaId(directory);
      const lastId = leftover.at(-1) ?? 0;
      const first = await wal.createSegment(Math.max(now(), lastId + 1));
      const log = new SegmentLog(wal, replicaId, first, intervalMs, now);
      for (const id of leftover) log.rotatedOut(id);
      return { log, leftover };
    } catch (error) {
      await wal.release();
      throw error;
    }
  }

  /** The segment appended to now. */
  get open(): OpenSegment {
    return this.current;
  }

  /**
   * Every log segment below this id is written to each of its tables (or dead-lettered): the oldest
   * segment still being written, else the one being appended to. It only grows, across restarts too.
   */
  completeBelow(): number {
    let lowest = this.current.segment.id;
    for (const id of this.unfinished.keys()) lowest = Math.min(lowest, id);
    return lowest;
  }

  /** Resolves once every segment rotated out before the call is written everywhere (or left in the log at close). */
  async drain(): Promise<void> {
    await Promise.all([...this.unfinished.values()].map((segment) => segment.done));
  }

  /**
   * Starts a new segment and returns the one it replaces, closed once its appends settled; undefined
   * when there is nothing to rotate (no point, no append, no failure).
   */
  async rotate(): Promise<OpenSegment | undefined> {
    const open = this.current;
    if (open.buffer.points === 0 && open.appends.size === 0 && !open.segment.failed) return undefined;
    this.current = this.openSegment(await this.wal.createSegment(Math.max(this.now(), open.segment.id + 1)));
    this.rotatedOut(open.segment.id);
    await Promise.all(open.appends);
    await open.segment.close();
    return open;
  }

  /**
   * Reads a segment left behind back into points, dead-lettering what cannot be read. Its rows are
   * rebuilt from every record, keys journaled or not: a crash between journaling a segment's keys
   * and deleting it leaves rows that hold all its points, and rewriting them from fewer records
   * would lose the rest. Only a key already replayed (in `replayedKeys`) is skipped: the same
   * request logged twice (an append refused after it reached the disk, then retried) is written once;
   * and, with `stillOurs` (keys shared by replicas), a request whose key another replica took over.
   */
  async replay(
    { id, payloads }: RecoveredSegment,
    replayedKeys: Set<string>,
    stillOurs?: (record: IdempotencyRecord) => Promise<boolean>,
  ): Promise<ReplayedSegment> {
    const replayed: ReplayedSegment = {
      buffer: new IntervalBuffer(this.intervalMs),
      keys: [],
      letters: [],
      duplicates: 0,
      takenOver: 0,
    };
    for (const payload of payloads) {
      let request: LoggedRequest;
      let points: MetricPoint[];
      try {
        request = decodeLoggedRequest(payload);
        points = parseIngestBuffer(request.body, request.format, { tenant: request.tenant });
      } catch (error) {
        replayed.letters.push(
          recordLetter(id, `unreadable log record: ${(error as Error).message}`, payload),
        );
        continue;
      }
      const { idempotency } = request;
      if (idempotency && replayedKeys.has(idempotency.key)) {
        replayed.duplicates++;
        continue;
      }
      // A store error here fails the replay (the segment stays for the next start), never the record.
      if (idempotency && stillOurs && !(await stillOurs(idempotency))) {
        replayed.takenOver++;
        continue;
      }
      replayed.buffer.add(points);
      if (idempotency) {
        replayedKeys.add(idempotency.key);
        replayed.keys.push(idempotency);
      }
    }
    return replayed;
  }

  /** The segment is written everywhere: its file goes. */
  async remove(id: number): Promise<void> {
    await this.wal.removeSegment(id);
    this.unfinished.get(id)?.settle();
    this.unfinished.delete(id);
  }

  /** The segment stays in the log for the next start (the service is closing). */
  leaveInLog(id: number): void {
    this.unfinished.get(id)?.settle();
  }

  async close(): Promise<void> {
    await this.current.segment.close();
    await this.wal.release();
  }

  private openSegment(segment: WalSegment): OpenSegment {
    return { segment, buffer: new IntervalBuffer(this.intervalMs), appends: new Set(), keys: [] };
  }

  private rotatedOut(id: number): void {
    let settle = () => {};
    const done = new Promise<void>((resolve) => {
      settle = resolve;
    });
    this.unfinished.set(id, { done, settle });
  }
}

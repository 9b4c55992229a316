/**
 * From accepted request to stored rows. A request is appended to the current write-ahead-log
 * segment, and only once its group commit succeeded do its points join that segment's interval
 * buffer and is it acknowledged: a request refused because the log could not be written (disk
 * full) is stored nowhere. Every `intervalMs` the flusher opens a new segment, writes the old
 * segment's buffer as one row per device per interval with durable store writes, and deletes the
 * old segment only after that (and after its dead letters and Idempotency-Keys are on disk).
 *
 * One bad row never blocks a flush: a row whose key cannot be encoded, or that the store keeps
 * refusing while it accepts other rows, goes to the dead-letter file with its reason (metric,
 * log line, `dead-letter` alert) and the rest of the segment completes. A store that refuses
 * everything is an outage, not a bad row: its rows are retried in the background (with backoff)
 * while later flushes go on, and ingest answers 503 once too many points wait.
 *
 * During a live migration a flush writes two tables (`writeTables`): a segment goes only once every
 * row is in both (a failure on either side keeps it, and retries that side). The tables are read
 * when a segment's flush starts and again before every retry: a table no longer listed (a phase
 * that stopped writing it) is no longer written. `completeBelow` is the migration's cut: every
 * segment below it is written to all its tables.
 *
 * The pieces: `write-admission.ts` (Idempotency-Keys, the pending-points cap), `segment-log.ts`
 * (rotation, replay), `segment-writer.ts` (a segment's rows to the tables until its file may go,
 * through `row-writer.ts` and `retry-queue.ts`). This file orders them.
 */
import type { SaltedTable } from "../../table/salted-table.js";
import type { HotspotMonitor } from "../observe/hotspot-monitor.js";
import type { RecentAccesses } from "../observe/recent-accesses.js";
import { logEvent } from "../observe/service-events.js";
import type { ServiceMetrics } from "../observe/service-metrics.js";
import type { TableClaim, TableIdempotency } from "../replicas/table-idempotency.js";
import type { IdempotencyRecord } from "../wal/idempotency-journal.js";
import type { RecoveredSegment } from "../wal/write-ahead-log.js";
import type { CpuTurns } from "./cpu-turns.js";
import type { IdempotencyCheck } from "./idempotency.js";
import { encodeLoggedRequest } from "./logged-request.js";
import type { IngestBodyFormat } from "./points/ingest-body.js";
import type { MetricPoint } from "./points/point.js";
import { SegmentLog } from "./segment-log.js";
import { SegmentWriter } from "./segment-writer.js";
import { WriteAdmission } from "./write-admission.js";

export interface IngestPipelineOptions {
  /** The service's table: it names the log (a log of another table is refused), and is written unless `writeTables` says otherwise. */
  table: SaltedTable;
  /**
   * The tables a flush writes now (default: `table`), asked when a segment's flush starts and before
   * each retry. The first is the primary: its writes feed the metrics, the monitor and the access log.
   */
  writeTables?: () => readonly SaltedTable[];
  /** What the log's target file names (default: the table's store and schema). */
  walTarget?: string;
  walDirectory: string;
  intervalMs: number;
  metrics: ServiceMetrics;
  monitor: HotspotMonitor;
  accessLog?: RecentAccesses;
  log: (line: string) => void;
  /** Shared with request parsing: each flush chunk is encoded in a turn of its own, so reads go between. */
  turns?: CpuTurns;
  /** How long an Idempotency-Key is remembered (default 24 h). */
  idempotencyWindowMs?: number;
  /**
   * Failed attempts after which a row the store keeps refusing — while it accepts other rows —
   * goes to the dead-letter file (default 8, about 16 s of backoff).
   */
  deadLetterAfterAttempts?: number;
  /** How long `close` keeps retrying rows before leaving them in the log for the next start (default 30 s). */
  closeTimeoutMs?: number;
  /** Acknowledged points not yet in the store past which `accept` refuses a request (default 2,000,000). */
  maxPendingPoints?: number;
  /** Test seam: the clock log segment ids come from (two replicas rotating in the same millisecond). */
  rotationClock?: () => number;
  /**
   * Called once the log is open (its lock held) and before its replay, with the log directory's
   * replica id: joins the replicas writing the table (refusing an id another live replica holds)
   * and returns the Idempotency-Key claims they share. Without it, keys are this process's own.
   */
  joinReplicas?: (replicaId: string) => Promise<TableIdempotency>;
}

/** A request's Idempotency-Key was taken over by another replica before its claim was confirmed: that replica stores it. */
export class KeyTakenOver extends Error {
  override readonly name = "KeyTakenOver";
}

/** A request the service validated and admitted. */
export interface AcceptedRequest {
  points: readonly MetricPoint[];
  format: IngestBodyFormat;
  body: Buffer;
  /** The authenticated tenant (kept so a replay reads the body the same way). */
  tenant?: string;
  idempotency?: IdempotencyRecord;
}

const JOURNAL_EXPIRY_EVERY_MS = 60 * 60 * 1000;

export class IngestPipeline {
  private flushTimer: NodeJS.Timeout | undefined;
  private expiryTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private closed = false;
  private closing: Promise<void> | undefined;
  private readonly admission: WriteAdmission;
  private readonly segmentWriter: SegmentWriter;
  private sharedKeys: TableIdempotency | undefined;

  private constructor(
    private readonly options: IngestPipelineOptions,
    private readonly segments: SegmentLog,
  ) {
    this.admission = new WriteAdmission(
      segments.wal.journal,
      options.maxPendingPoints,
      options.idempotencyWindowMs,
    );
    this.segmentWriter = new SegmentWriter(options, segments, this.admission);
  }

  /** Opens the log, writes every segment a previous run left behind, and starts the flush timer. */
  static async open(options: IngestPipelineOptions): Promise<IngestPipeline> {
    const { table } = options;
    const { log, leftover } = await SegmentLog.open(
      options.walDirectory,
      options.walTarget ?? `${table.store.name} (schema ${table.schema.fingerprint})`,
      options.intervalMs,
      options.rotationClock,
    );
    let pipeline: IngestPipeline;
    try {
      pipeline = new IngestPipeline(options, log);
      pipeline.sharedKeys = await options.joinReplicas?.(log.replicaId);
      await pipeline.expireKeys();
      const replayedKeys = new Set<string>();
      // One segment in memory at a time: read it once the one before it is written.
      for (const id of leftover) await pipeline.replay(await log.wal.readSegment(id), replayedKeys);
    } catch (error) {
      // The segment opened for this run is closed too: its file handle would otherwise leak.
      await log.close();
      throw error;
    }
    pipeline.flushTimer = setInterval(() => {
      // A flush that could not start (no new segment: disk full) is tried again next tick.
      pipeline.flush().catch((error: unknown) => {
        logEvent(options.log, "flush-error", { error: String(error) });
      });
    }, options.intervalMs);
    pipeline.flushTimer.unref();
    pipeline.expiryTimer = setInterval(
      () => void pipeline.expireKeys(),
      Math.min(JOURNAL_EXPIRY_EVERY_MS, pipeline.admission.idempotencyWindowMs),
    );
    pipeline.expiryTimer.unref();
    return pipeline;
  }

  /** Acknowledged points not yet in the store (plus those of requests being appended now). */
  pendingPoints(): number {
    return this.admission.pendingPoints;
  }

  /** Whether a request with this Idempotency-Key was answered (with this body or another), or is being processed now. */
  checkIdempotencyKey(key: string, fingerprint: string): IdempotencyCheck {
    return this.admission.checkKey(key, fingerprint);
  }

  /**
   * Claims the key in the table the replicas share (`table-idempotency.ts`) before the request is
   * logged; without shared keys, the local check said enough and the key is claimed.
   */
  claimIdempotencyKey(key: string, fingerprint: string): Promise<TableClaim> {
    return this.sharedKeys?.claim(key, fingerprint) ?? Promise.resolve({ state: "claimed" });
  }

  /** The claimed request was not acknowledged: its claim goes, so a retry on any replica is processed afresh. */
  releaseIdempotencyKey(key: string): Promise<void> {
    return this.sharedKeys?.release(key) ?? Promise.resolve();
  }

  /** The log directory's replica id: the row key's writer. */
  get replicaId(): string {
    return this.segments.replicaId;
  }

  /** Runs `task` with the key marked in flight, so a concurrent retry of the request is told to wait. */
  whileProcessing<T>(key: string, task: () => Promise<T>): Promise<T> {
    return this.admission.whileProcessing(key, task);
  }

  /** Store write calls, rows and points written to the primary table since start (the bench's points per write). */
  get totals(): SegmentWriter["totals"] {
    return this.segmentWriter.totals;
  }

  /** The first segment this process opened: every later one is flushed by it. */
  get firstSegmentId(): number {
    return this.segments.firstSegmentId;
  }

  /**
   * Logs the request; resolves once it survives a crash (then its points are buffered), rejects when
   * it was not logged: `PendingPointsFull` when its points would take the pending points past the
   * cap (checked and counted in one step, so concurrent requests cannot overshoot it).
   */
  accept(request: AcceptedRequest): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the service is shutting down"));
    const open = this.segments.open;
    if (open.segment.failed) {
      this.flush().catch(() => {});
      return Promise.reject(new Error("the write-ahead log segment failed and is being replaced"));
    }
    const count = request.points.length;
    try {
      this.admission.reserve(count);
    } catch (error) {
      return Promise.reject(error);
    }
    const appended = open.segment.append(encodeLoggedRequest(request)).then(
      async () => {
        // Logged: the key's shared claim must become done before the points count (else another replica stores them).
        if (request.idempotency && this.sharedKeys) {
          const confirmed = await this.sharedKeys.confirm(request.idempotency).catch(() => false);
          if (!confirmed) {
            this.admission.release(count);
            throw new KeyTakenOver(
              "this request's Idempotency-Key was taken over by another replica while it was logged; retry to get its answer",
            );
          }
        }
        // Encoding the points into their rows is a heavy step: it takes its turn (in commit order).
        await this.options.turns?.take();
        open.buffer.add(request.points);
        if (request.idempotency) {
          open.keys.push(request.idempotency);
          this.admission.remember(request.idempotency);
        }
      },
      (error: unknown) => {
        this.admission.release(count);
        this.options.metrics.walAppendFailures.inc();
        throw error;
      },
    );
    const settled = appended.then(
      () => {},
      () => {},
    );
    open.appends.add(settled);
    void settled.then(() => open.appends.delete(settled));
    return appended;
  }

  /** Writes everything logged so far (one flush after those already queued); failed rows go on in the background. */
  flush(): Promise<void> {
    const flushed = this.flushing.catch(() => {}).then(() => this.flushOnce());
    this.flushing = flushed;
    return flushed;
  }

  /** Waits for the background retries too: every acknowledged point is in the store or the dead-letter file. */
  async settle(): Promise<void> {
    await this.flush();
    await this.segmentWriter.settle();
  }

  /**
   * Every log segment below this id is written to each of its tables (or dead-lettered): the oldest
   * segment still being written, else the one being appended to. It only grows, across restarts too.
   */
  completeBelow(): number {
    return this.segments.completeBelow();
  }

  /** The segment appended to now: every row of it and of later segments is written to the tables listed when it is flushed. */
  get openSegmentId(): number {
    return this.segments.open.segment.id;
  }

  /** Resolves once every segment rotated out before the call is written everywhere (or left in the log at close). */
  drain(): Promise<void> {
    return this.segments.drain();
  }

  /** Rows and records dead-lettered since the last call (the alert rule's input). */
  takeDeadLetters(): number {
    return this.segmentWriter.takeDeadLetters();
  }

  /**
   * Stops the timers, flushes what is buffered, and closes the log. Rows the store still refuses
   * after `closeTimeoutMs` (or at `deadlineMs`, epoch ms, if sooner) stay in their segments,
   * replayed at the next start. A second call waits for the first.
   */
  close(deadlineMs = Number.POSITIVE_INFINITY): Promise<void> {
    this.closing ??= this.closeBy(deadlineMs);
    return this.closing;
  }

  private async closeBy(deadlineMs: number): Promise<void> {
    clearInterval(this.flushTimer);
    clearInterval(this.expiryTimer);
    this.closed = true;
    await this.flush().catch((error: unknown) => {
      logEvent(this.options.log, "flush-error", { error: String(error) });
    });
    await this.segmentWriter.closeBy(
      Math.min(deadlineMs, Date.now() + (this.options.closeTimeoutMs ?? 30_000)),
    );
    await this.segments.close();
  }

  private async flushOnce(): Promise<void> {
    const open = await this.segments.rotate();
    if (open)
      await this.segmentWriter.write({
        id: open.segment.id,
        buffer: open.buffer,
        keys: open.keys,
        recordLetters: [],
      });
  }

  /** Writes a segment left behind (see `SegmentLog.replay`), counting its damage. */
  private async replay(recovered: RecoveredSegment, replayedKeys: Set<string>): Promise<void> {
    const { metrics, log } = this.options;
    const { id, tornBytes, corrupt } = recovered;
    for (const range of corrupt) {
      metrics.walCorruptRecords.inc();
      metrics.walCorruptBytes.inc(range.bytes);
      logEvent(log, "wal-corrupt", { segment: id, offset: range.offset, bytes: range.bytes });
    }
    const shared = this.sharedKeys;
    const { buffer, keys, letters, duplicates, takenOver } = await this.segments.replay(
      recovered,
      replayedKeys,
      shared && ((record) => shared.confirmReplayed(record)),
    );
    for (const key of keys) this.admission.remember(key);
    this.admission.addReplayed(buffer.points);
    logEvent(log, "wal-replay", {
      segment: id,
      points: buffer.points,
      tornBytes,
      corruptRanges: corrupt.length,
      deadLetters: letters.length,
      duplicates,
      takenOver,
    });
    await this.segmentWriter.write({ id, buffer, keys, recordLetters: letters });
  }

  private async expireKeys(): Promise<void> {
    try {
      await this.segments.wal.journal.expire(Date.now() - this.admission.idempotencyWindowMs);
      await this.sharedKeys?.sweep();
    } catch (error) {
      logEvent(this.options.log, "idempotency-expiry-error", { error: String(error) });
    }
  }
}

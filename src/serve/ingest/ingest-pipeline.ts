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
 * Segment ids are epoch milliseconds, strictly increasing across restarts: the newest segment file
 * is never deleted (only older ones, after their flush), so a restarted service always knows the
 * last id even if the clock went back.
 *
 * During a live migration a flush writes two tables (`writeTables`): a segment goes only once every
 * row is in both (a failure on either side keeps it, and retries that side). The tables are read
 * when a segment's flush starts and again before every retry: a table no longer listed (a phase
 * that stopped writing it) is no longer written. `completeBelow` is the migration's cut: every
 * segment below it is written to all its tables.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { StoreMutation } from "../../store/store.js";
import type { SaltedTable } from "../../table/salted-table.js";
import type { HotspotMonitor } from "../observe/hotspot-monitor.js";
import type { AccessEntry, AccessLog } from "../observe/recent-accesses.js";
import type { ServiceMetrics } from "../observe/service-metrics.js";
import type { IdempotencyRecord } from "../wal/idempotency-journal.js";
import {
  type RecoveredSegment,
  type WalFaults,
  type WalSegment,
  WriteAheadLog,
} from "../wal/write-ahead-log.js";
import type { CpuTurns } from "./cpu-turns.js";
import { type DeadLetter, DeadLetterFile, recordLetter } from "./dead-letter.js";
import { IdempotencyKeys } from "./idempotency.js";
import { type IngestBodyFormat, parseIngestBuffer } from "./ingest-body.js";
import { type AggregatedRow, IntervalBuffer } from "./interval-buffer.js";
import { decodeLoggedRequest, encodeLoggedRequest } from "./logged-request.js";
import type { MetricPoint } from "./point.js";
import { decodeMetricPoints, METRIC_POINTS_QUALIFIER } from "./point-codec.js";

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
  accessLog?: AccessLog;
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
  /** Test seam: faults the log writer meets (a full disk). */
  walFaults?: WalFaults;
}

export const DEFAULT_MAX_PENDING_POINTS = 2_000_000;

/** `accept` refused a request because too many acknowledged points wait for their flush (the store is behind). */
export class PendingPointsFull extends Error {
  override readonly name = "PendingPointsFull";
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

/** The segment being appended to and the points its records hold. */
interface OpenSegment {
  segment: WalSegment;
  buffer: IntervalBuffer;
  /** Appends not settled yet: the flush waits for them before writing the buffer. */
  appends: Set<Promise<void>>;
  keys: IdempotencyRecord[];
}

/** A segment being written to the store: what must be durable before its file may go. */
interface FlushingSegment {
  id: number;
  points: number;
  keys: IdempotencyRecord[];
  letters: DeadLetter[];
  /** The tables its rows go to (those listed when its flush started). */
  tables: readonly SaltedTable[];
}

/** A segment rotated out of the log's head and not yet written everywhere; `done` settles when it is (or is left in the log). */
interface UnfinishedSegment {
  done: Promise<void>;
  settle: () => void;
}

/** One row on its way to one table. */
interface PendingRow {
  row: AggregatedRow;
  table: SaltedTable;
  mutation: StoreMutation;
  attempts: number;
  reason: string;
  /** Successful store writes seen when the row first failed: more since means the store is up. */
  successesAtFirstFailure: number;
}

const RETRY_BASE_MS = 100;
const RETRY_MAX_MS = 5_000;
/** Rows written per store call during a flush (each call is one synced write)... */
const FLUSH_CHUNK_ROWS = 2_000;
/** ...encoded a quarter at a time, each quarter in a CPU turn of its own. */
const ENCODE_TURN_ROWS = 500;
const JOURNAL_EXPIRY_EVERY_MS = 60 * 60 * 1000;

export class IngestPipeline {
  private current: OpenSegment;
  private flushTimer: NodeJS.Timeout | undefined;
  private expiryTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  /** Retries and completions running behind the flushes. */
  private readonly background = new Set<Promise<void>>();
  private closed = false;
  private closeDeadlineMs: number | undefined;
  /** Store write calls that took at least one row, per table. */
  private readonly writeSuccesses = new Map<SaltedTable, number>();
  /** Segments rotated out and not yet written to every table, by id. */
  private readonly unfinished = new Map<number, UnfinishedSegment>();
  private deadLettersInWindow = 0;
  private readonly deadLetters: DeadLetterFile;
  readonly idempotency: IdempotencyKeys;
  /** Acknowledged points not yet in the store (plus those of requests being appended now). */
  pendingPoints = 0;
  /** Store write calls, rows and points written to the primary table since start (the bench's points per write). */
  readonly totals = { storeWrites: 0, rowsWritten: 0, pointsWritten: 0 };
  /** The first segment this process opened: every later one is flushed by it. */
  readonly firstSegmentId: number;

  private constructor(
    private readonly options: IngestPipelineOptions,
    private readonly wal: WriteAheadLog,
    segment: WalSegment,
  ) {
    this.current = this.openSegment(segment);
    this.firstSegmentId = segment.id;
    this.deadLetters = new DeadLetterFile(`${wal.directory}/dead-letter.jsonl`);
    this.idempotency = new IdempotencyKeys(wal.journal, options.idempotencyWindowMs);
  }

  /** Opens the log, writes every segment a previous run left behind, and starts the flush timer. */
  static async open(options: IngestPipelineOptions): Promise<IngestPipeline> {
    const { table } = options;
    const { wal, leftover } = await WriteAheadLog.open(
      options.walDirectory,
      options.walTarget ?? `${table.store.name} (schema ${table.schema.fingerprint})`,
      { faults: options.walFaults },
    );
    let pipeline: IngestPipeline;
    try {
      const lastId = leftover.at(-1) ?? 0;
      pipeline = new IngestPipeline(options, wal, await wal.createSegment(Math.max(Date.now(), lastId + 1)));
      for (const id of leftover) pipeline.rotatedOut(id);
      await pipeline.expireKeys();
      const replayedKeys = new Set<string>();
      // One segment in memory at a time: read it once the one before it is written.
      for (const id of leftover) await pipeline.replay(await wal.readSegment(id), replayedKeys);
    } catch (error) {
      await wal.release();
      throw error;
    }
    pipeline.flushTimer = setInterval(() => {
      // A flush that could not start (no new segment: disk full) is tried again next tick.
      pipeline.flush().catch((error: unknown) => {
        options.log(JSON.stringify({ event: "flush-error", error: String(error) }));
      });
    }, options.intervalMs);
    pipeline.flushTimer.unref();
    pipeline.expiryTimer = setInterval(
      () => void pipeline.expireKeys(),
      Math.min(JOURNAL_EXPIRY_EVERY_MS, pipeline.idempotency.windowMs),
    );
    pipeline.expiryTimer.unref();
    return pipeline;
  }

  /**
   * Logs the request; resolves once it survives a crash (then its points are buffered), rejects when
   * it was not logged: `PendingPointsFull` when its points would take the pending points past the
   * cap (checked and counted in one step, so concurrent requests cannot overshoot it).
   */
  accept(request: AcceptedRequest): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the service is shutting down"));
    const open = this.current;
    if (open.segment.failed) {
      this.flush().catch(() => {});
      return Promise.reject(new Error("the write-ahead log segment failed and is being replaced"));
    }
    const count = request.points.length;
    if (this.pendingPoints + count > (this.options.maxPendingPoints ?? DEFAULT_MAX_PENDING_POINTS)) {
      return Promise.reject(
        new PendingPointsFull("the store is behind: too many points wait for their flush"),
      );
    }
    this.pendingPoints += count;
    const appended = open.segment.append(encodeLoggedRequest(request)).then(
      async () => {
        // Encoding the points into their rows is a heavy step: it takes its turn (in commit order).
        await this.options.turns?.take();
        open.buffer.add(request.points);
        if (request.idempotency) {
          open.keys.push(request.idempotency);
          this.idempotency.remember(request.idempotency);
        }
      },
      (error: unknown) => {
        this.pendingPoints -= count;
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
    while (this.background.size > 0) await Promise.all(this.background);
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

  /** The segment appended to now: every row of it and of later segments is written to the tables listed when it is flushed. */
  get openSegmentId(): number {
    return this.current.segment.id;
  }

  /** Resolves once every segment rotated out before the call is written everywhere (or left in the log at close). */
  async drain(): Promise<void> {
    await Promise.all([...this.unfinished.values()].map((segment) => segment.done));
  }

  /** Rows and records dead-lettered since the last call (the alert rule's input). */
  takeDeadLetters(): number {
    const count = this.deadLettersInWindow;
    this.deadLettersInWindow = 0;
    return count;
  }

  /**
   * Stops the timers, flushes what is buffered, and closes the log. Rows the store still refuses
   * after `closeTimeoutMs` stay in their segments, replayed at the next start.
   */
  async close(): Promise<void> {
    clearInterval(this.flushTimer);
    clearInterval(this.expiryTimer);
    this.closed = true;
    await this.flush().catch((error: unknown) => {
      this.options.log(JSON.stringify({ event: "flush-error", error: String(error) }));
    });
    this.closeDeadlineMs = Date.now() + (this.options.closeTimeoutMs ?? 30_000);
    while (this.background.size > 0) await Promise.all(this.background);
    await this.current.segment.close();
    await this.wal.release();
  }

  private openSegment(segment: WalSegment): OpenSegment {
    return { segment, buffer: new IntervalBuffer(this.options.intervalMs), appends: new Set(), keys: [] };
  }

  private rotatedOut(id: number): void {
    let settle = () => {};
    const done = new Promise<void>((resolve) => {
      settle = resolve;
    });
    this.unfinished.set(id, { done, settle });
  }

  private async flushOnce(): Promise<void> {
    const open = this.current;
    if (open.buffer.points === 0 && open.appends.size === 0 && !open.segment.failed) return;
    this.current = this.openSegment(await this.wal.createSegment(Math.max(Date.now(), open.segment.id + 1)));
    this.rotatedOut(open.segment.id);
    await Promise.all(open.appends);
    await open.segment.close();
    await this.writeSegment(open.segment.id, open.buffer, open.keys, []);
  }

  /**
   * Reads a segment left behind back into points (counting damage, dead-lettering what cannot be
   * read) and writes it. Its rows are rebuilt from every record, keys journaled or not: a crash
   * between journaling a segment's keys and deleting it leaves rows that hold all its points, and
   * rewriting them from fewer records would lose the rest. Only a key already replayed (in
   * `replayedKeys`) is skipped: the same request logged twice (an append refused after it reached
   * the disk, then retried) is written once.
   */
  private async replay(
    { id, payloads, tornBytes, corrupt }: RecoveredSegment,
    replayedKeys: Set<string>,
  ): Promise<void> {
    const { metrics, log } = this.options;
    for (const range of corrupt) {
      metrics.walCorruptRecords.inc();
      metrics.walCorruptBytes.inc(range.bytes);
      log(JSON.stringify({ event: "wal-corrupt", segment: id, offset: range.offset, bytes: range.bytes }));
    }
    const buffer = new IntervalBuffer(this.options.intervalMs);
    const keys: IdempotencyRecord[] = [];
    const letters: DeadLetter[] = [];
    let duplicates = 0;
    for (const payload of payloads) {
      try {
        const request = decodeLoggedRequest(payload);
        if (request.idempotency && replayedKeys.has(request.idempotency.key)) {
          duplicates++;
          continue;
        }
        buffer.add(parseIngestBuffer(request.body, request.format, { tenant: request.tenant }));
        if (request.idempotency) {
          replayedKeys.add(request.idempotency.key);
          keys.push(request.idempotency);
          this.idempotency.remember(request.idempotency);
        }
      } catch (error) {
        letters.push(recordLetter(id, `unreadable log record: ${(error as Error).message}`, payload));
        this.countDeadLetter("record");
      }
    }
    this.pendingPoints += buffer.points;
    log(
      JSON.stringify({
        event: "wal-replay",
        segment: id,
        points: buffer.points,
        tornBytes,
        corruptRanges: corrupt.length,
        deadLetters: letters.length,
        duplicates,
      }),
    );
    await this.writeSegment(id, buffer, keys, letters);
  }

  /**
   * Writes a segment's rows in chunks (the event loop serves requests between them). Rows that
   * failed are retried in the background; the segment's file goes once every row is durable in
   * the store or in the dead-letter file.
   */
  private async writeSegment(
    id: number,
    buffer: IntervalBuffer,
    keys: IdempotencyRecord[],
    letters: DeadLetter[],
  ): Promise<void> {
    const segment: FlushingSegment = { id, points: buffer.points, keys, letters, tables: this.writeTables() };
    const failed: PendingRow[] = [];
    const rows = buffer.rows(id);
    for (;;) {
      const chunk: AggregatedRow[] = [];
      let more = true;
      while (more && chunk.length < FLUSH_CHUNK_ROWS) {
        await this.options.turns?.take();
        for (let turn = 0; turn < ENCODE_TURN_ROWS; turn++) {
          const next = rows.next();
          if (next.done) {
            more = false;
            break;
          }
          chunk.push(next.value);
        }
      }
      await this.options.turns?.take();
      failed.push(...(await this.writeRows(segment, chunk)));
      if (chunk.length < FLUSH_CHUNK_ROWS) break;
    }
    if (
      failed.length === 0 &&
      (await this.complete(segment).then(
        () => true,
        () => false,
      ))
    )
      return;
    this.inBackground(this.retryAndComplete(segment, failed));
  }

  private inBackground(task: Promise<void>): void {
    const tracked = task.catch((error: unknown) => {
      this.options.log(JSON.stringify({ event: "flush-error", error: String(error) }));
    });
    this.background.add(tracked);
    void tracked.then(() => this.background.delete(tracked));
  }

  private writeTables(): readonly SaltedTable[] {
    return this.options.writeTables?.() ?? [this.options.table];
  }

  /**
   * Encodes the rows' keys for each of the segment's tables (a row that cannot be encoded is
   * dead-lettered) and writes them once, the tables at once; returns the failed ones.
   */
  private async writeRows(segment: FlushingSegment, rows: readonly AggregatedRow[]): Promise<PendingRow[]> {
    const perTable = segment.tables.map((table) => {
      const pending: PendingRow[] = [];
      for (const row of rows) {
        try {
          const key = table.schema.encode(row.values);
          pending.push({
            row,
            table,
            mutation: { type: "put", key, cells: row.cells },
            attempts: 0,
            reason: "",
            successesAtFirstFailure: 0,
          });
        } catch (error) {
          this.deadLetterRow(segment, row, table, `row key: ${(error as Error).message}`);
        }
      }
      return pending;
    });
    return (await Promise.all(perTable.map((pending) => this.attempt(pending)))).flat();
  }

  /** Writes each table's rows at once; returns those that failed. */
  private async attemptAll(rows: readonly PendingRow[]): Promise<PendingRow[]> {
    const perTable = new Map<SaltedTable, PendingRow[]>();
    for (const row of rows) {
      const list = perTable.get(row.table);
      if (list) list.push(row);
      else perTable.set(row.table, [row]);
    }
    return (await Promise.all([...perTable.values()].map((pending) => this.attempt(pending)))).flat();
  }

  /**
   * One durable store write of rows bound for one table; returns those that failed. A call the
   * store throws on (it refused the batch as a whole) is split in halves until the rows it refuses
   * are alone.
   */
  private async attempt(rows: PendingRow[]): Promise<PendingRow[]> {
    if (rows.length === 0) return [];
    const { metrics } = this.options;
    const table = rows[0]!.table;
    const started = performance.now();
    let failures: Map<number, string>;
    try {
      const { failed } = await table.store.write(
        rows.map((pending) => pending.mutation),
        { durable: true },
      );
      failures = new Map(failed.map((failure) => [failure.index, failure.reason]));
    } catch (error) {
      if (rows.length > 1) {
        const half = rows.length >> 1;
        return [...(await this.attempt(rows.slice(0, half))), ...(await this.attempt(rows.slice(half)))];
      }
      failures = new Map([[0, `the store refused the write: ${(error as Error).message}`]]);
    }
    const primary = table === this.writeTables()[0];
    if (primary) {
      metrics.storeWrites.inc();
      this.totals.storeWrites++;
    }
    const successes = this.writeSuccesses.get(table) ?? 0;
    const written: PendingRow[] = [];
    const failed: PendingRow[] = [];
    rows.forEach((pending, index) => {
      const reason = failures.get(index);
      if (reason === undefined) {
        written.push(pending);
        return;
      }
      if (pending.attempts === 0) pending.successesAtFirstFailure = successes;
      pending.attempts++;
      pending.reason = reason;
      failed.push(pending);
    });
    if (written.length > 0) {
      this.writeSuccesses.set(table, successes + 1);
      if (primary) this.recordWritten(table, written, performance.now() - started);
    }
    return failed;
  }

  private recordWritten(table: SaltedTable, rows: readonly PendingRow[], writeMs: number): void {
    const { metrics, monitor, accessLog } = this.options;
    metrics.writeLatency.observe(writeMs / 1000);
    monitor.useBuckets(table.schema.bucketCount);
    const entries: AccessEntry[] = new Array(rows.length);
    rows.forEach(({ row, mutation }, index) => {
      const bucket = table.schema.bucketOf(row.values);
      const points = row.points;
      metrics.rowsWritten.inc({ bucket: String(bucket) });
      metrics.pointsWritten.inc({ bucket: String(bucket) }, points);
      monitor.observeBucket(bucket, points);
      this.totals.pointsWritten += points;
      const bytes = row.cells.get(METRIC_POINTS_QUALIFIER)!.length;
      entries[index] = { key: mutation.key, op: "write", bytes, latencyMs: Math.round(writeMs) };
    });
    accessLog?.record(Date.now(), entries);
    this.totals.rowsWritten += rows.length;
  }

  /**
   * Retries the failed rows with backoff until the store takes them; a row still refused after
   * `deadLetterAfterAttempts` while the store took other rows is dead-lettered. Then completes.
   */
  private async retryAndComplete(segment: FlushingSegment, failed: PendingRow[]): Promise<void> {
    const limit = this.options.deadLetterAfterAttempts ?? 8;
    let pending = failed;
    for (let attempt = 0; ; attempt++) {
      pending = this.stillWritten(segment, pending).filter((row) => {
        if (row.attempts < limit || (this.writeSuccesses.get(row.table) ?? 0) <= row.successesAtFirstFailure)
          return true;
        this.deadLetterRow(
          segment,
          row.row,
          row.table,
          `the store refused it ${row.attempts} times: ${row.reason}`,
        );
        return false;
      });
      if (
        pending.length === 0 &&
        (await this.complete(segment).then(
          () => true,
          (error: unknown) => {
            this.options.log(
              JSON.stringify({ event: "segment-complete-retry", segment: segment.id, error: String(error) }),
            );
            return false;
          },
        ))
      ) {
        return;
      }
      if (this.closeDeadlineMs !== undefined && Date.now() > this.closeDeadlineMs) {
        this.options.log(JSON.stringify({ event: "left-in-log", segment: segment.id, rows: pending.length }));
        this.unfinished.get(segment.id)?.settle();
        return;
      }
      if (pending.length > 0) {
        this.options.log(
          JSON.stringify({
            event: "store-write-retry",
            segment: segment.id,
            failedRows: pending.length,
            table: pending[0]!.table.store.name,
            reason: pending[0]!.reason,
          }),
        );
      }
      await sleep(Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** attempt));
      if (pending.length > 0) pending = await this.attemptAll(this.stillWritten(segment, pending));
    }
  }

  /** The rows whose table is still written: a phase that stopped writing a table drops its retries. */
  private stillWritten(segment: FlushingSegment, pending: PendingRow[]): PendingRow[] {
    const tables = new Set(this.writeTables());
    const kept = pending.filter((row) => tables.has(row.table));
    if (kept.length < pending.length) {
      const dropped = pending.filter((row) => !tables.has(row.table));
      this.options.log(
        JSON.stringify({
          event: "table-no-longer-written",
          segment: segment.id,
          table: dropped[0]!.table.store.name,
          rows: dropped.length,
        }),
      );
    }
    return kept;
  }

  /** Dead letters fsynced, Idempotency-Keys journaled, then the segment's file deleted. */
  private async complete(segment: FlushingSegment): Promise<void> {
    await this.deadLetters.append(segment.letters);
    segment.letters = [];
    await this.wal.journal.put(segment.keys);
    this.idempotency.journaled(segment.keys);
    await this.wal.removeSegment(segment.id);
    this.unfinished.get(segment.id)?.settle();
    this.unfinished.delete(segment.id);
    this.pendingPoints -= segment.points;
    segment.points = 0;
    this.options.metrics.pendingPoints.set(this.pendingPoints);
  }

  private deadLetterRow(
    segment: FlushingSegment,
    row: AggregatedRow,
    table: SaltedTable,
    reason: string,
  ): void {
    const { tenant, deviceId, interval } = row.values;
    const points = decodeMetricPoints(row.cells.get(METRIC_POINTS_QUALIFIER)!, deviceId, interval);
    segment.letters.push({
      segment: segment.id,
      reason,
      table: table.store.name,
      row: { tenant, deviceId, interval, points },
    });
    this.countDeadLetter("row");
    this.options.log(
      JSON.stringify({
        event: "dead-letter",
        segment: segment.id,
        table: table.store.name,
        points: points.length,
        reason,
      }),
    );
  }

  private countDeadLetter(kind: "row" | "record"): void {
    this.options.metrics.deadLetters.inc({ kind });
    this.deadLettersInWindow++;
  }

  private async expireKeys(): Promise<void> {
    try {
      await this.wal.journal.expire(Date.now() - this.idempotency.windowMs);
    } catch (error) {
      this.options.log(JSON.stringify({ event: "idempotency-expiry-error", error: String(error) }));
    }
  }
}

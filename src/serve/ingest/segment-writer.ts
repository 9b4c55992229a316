/**
 * Writes one log segment — rotated out at a flush, or left behind by a previous run — until its
 * file may go: its rows to every table written now, in chunks (`row-writer.ts`); the rows the store
 * refused to the background retries (`retry-queue.ts`); and once every row is durable in the store
 * or in the dead-letter file, completes it: dead letters fsynced, Idempotency-Keys journaled, the
 * file deleted, its points no longer pending.
 */
import type { SaltedTable } from "../../table/salted-table.js";
import type { HotspotMonitor } from "../observe/hotspot-monitor.js";
import type { RecentAccesses } from "../observe/recent-accesses.js";
import type { ServiceMetrics } from "../observe/service-metrics.js";
import type { IdempotencyRecord } from "../wal/idempotency-journal.js";
import type { CpuTurns } from "./cpu-turns.js";
import type { DeadLetter } from "./dead-letter.js";
import type { IntervalBuffer } from "./points/interval-buffer.js";
import { type FlushingSegment, RetryQueue } from "./retry-queue.js";
import { RowWriter } from "./row-writer.js";
import type { SegmentLog } from "./segment-log.js";
import type { WriteAdmission } from "./write-admission.js";

export interface SegmentWriterOptions {
  /** The service's table, written unless `writeTables` says otherwise. */
  table: SaltedTable;
  /** The tables written now, asked when a segment's write starts and before each retry; the first is the primary. */
  writeTables?: () => readonly SaltedTable[];
  metrics: ServiceMetrics;
  monitor: HotspotMonitor;
  accessLog?: RecentAccesses;
  log: (line: string) => void;
  turns?: CpuTurns;
  /** Failed attempts after which a row the store keeps refusing, while it accepts other rows, is dead-lettered. */
  deadLetterAfterAttempts?: number;
}

/** What a segment's write needs: its rows, its requests' Idempotency-Keys, and the records of it that could not be read back. */
export interface SegmentToWrite {
  id: number;
  buffer: IntervalBuffer;
  keys: IdempotencyRecord[];
  /** Dead letters of unreadable log records (found at replay); each is counted as one when the write starts. */
  recordLetters: DeadLetter[];
}

export class SegmentWriter {
  private readonly rows: RowWriter;
  private readonly retries: RetryQueue;

  constructor(
    private readonly options: SegmentWriterOptions,
    private readonly segments: SegmentLog,
    private readonly admission: WriteAdmission,
  ) {
    const writeTables = () => this.writeTables();
    this.rows = new RowWriter({ ...options, writeTables });
    this.retries = new RetryQueue({
      ...options,
      writer: this.rows,
      deadLetterPath: `${segments.wal.directory}/dead-letter.jsonl`,
      writeTables,
      complete: (segment) => this.complete(segment),
      leaveInLog: (id) => segments.leaveInLog(id),
    });
  }

  /** Store write calls, rows and points written to the primary table since start. */
  get totals(): Readonly<RowWriter["totals"]> {
    return this.rows.totals;
  }

  /**
   * Writes the segment's rows in chunks (the event loop serves requests between them). Rows that
   * failed are retried in the background; the segment's file goes once every row is durable in
   * the store or in the dead-letter file.
   */
  async write({ id, buffer, keys, recordLetters }: SegmentToWrite): Promise<void> {
    for (const _ of recordLetters) this.retries.countDeadLetter("record");
    const segment: FlushingSegment = {
      id,
      points: buffer.points,
      keys,
      letters: recordLetters,
      tables: this.writeTables(),
    };
    const failed = await this.rows.writeAll(
      buffer.rows(id, this.segments.replicaId),
      segment.tables,
      (row, table, reason) => this.retries.deadLetterRow(segment, row, table, reason),
    );
    if (
      failed.length === 0 &&
      (await this.complete(segment).then(
        () => true,
        () => false,
      ))
    )
      return;
    this.retries.add(segment, failed);
  }

  /** Resolves once no retry is left: every segment written so far is complete. */
  settle(): Promise<void> {
    return this.retries.settle();
  }

  /** Retries until `deadlineMs`, then leaves what the store still refuses in the log for the next start. */
  closeBy(deadlineMs: number): Promise<void> {
    return this.retries.closeBy(deadlineMs);
  }

  /** Rows and records dead-lettered since the last call (the alert rule's input). */
  takeDeadLetters(): number {
    return this.retries.takeDeadLetters();
  }

  private writeTables(): readonly SaltedTable[] {
    return this.options.writeTables?.() ?? [this.options.table];
  }

  /** Dead letters fsynced, Idempotency-Keys journaled, then the segment's file deleted. */
  private async complete(segment: FlushingSegment): Promise<void> {
    await this.retries.appendLetters(segment);
    await this.segments.wal.journal.put(segment.keys);
    this.admission.journaled(segment.keys);
    await this.segments.remove(segment.id);
    this.admission.release(segment.points);
    segment.points = 0;
    this.options.metrics.pendingPoints.set(this.admission.pendingPoints);
  }
}

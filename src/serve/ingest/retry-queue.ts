/**
 * Rows the store refused, retried in the background with backoff while later flushes go on, and
 * the dead-letter file for what cannot be stored: a row whose key cannot be encoded, a row the
 * store keeps refusing while it accepts other rows, a log record that cannot be read back. Nothing
 * is dropped silently: each letter has its metric, its log line and counts toward the
 * `dead-letter` alert.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { SaltedTable } from "../../table/salted-table.js";
import { logEvent } from "../observe/service-events.js";
import type { ServiceMetrics } from "../observe/service-metrics.js";
import type { IdempotencyRecord } from "../wal/idempotency-journal.js";
import { type DeadLetter, DeadLetterFile } from "./dead-letter.js";
import type { AggregatedRow } from "./points/interval-buffer.js";
import { decodeMetricPoints } from "./points/point-codec.js";
import type { PendingRow, RowWriter } from "./row-writer.js";

/** A segment being written to the store: what must be durable before its file may go. */
export interface FlushingSegment {
  id: number;
  points: number;
  keys: IdempotencyRecord[];
  letters: DeadLetter[];
  /** The tables its rows go to (those listed when its flush started). */
  tables: readonly SaltedTable[];
}

export interface RetryQueueOptions {
  writer: RowWriter;
  deadLetterPath: string;
  metrics: ServiceMetrics;
  log: (line: string) => void;
  /** The tables written now: a table no longer listed drops its retries. */
  writeTables: () => readonly SaltedTable[];
  /** Failed attempts after which a row the store keeps refusing, while it accepts other rows, is dead-lettered (default `DEFAULT_DEAD_LETTER_AFTER_ATTEMPTS`). */
  deadLetterAfterAttempts?: number;
  /** Dead letters fsynced, keys journaled, the segment's file deleted; throws when one of them failed. */
  complete: (segment: FlushingSegment) => Promise<void>;
  /** Gives up on a segment at close: its rows stay in the log for the next start. */
  leaveInLog: (segmentId: number) => void;
}

/** About 16 s of backoff. */
export const DEFAULT_DEAD_LETTER_AFTER_ATTEMPTS = 8;

const RETRY_BASE_MS = 100;
const RETRY_MAX_MS = 5_000;

export class RetryQueue {
  /** Retries and completions running behind the flushes. */
  private readonly background = new Set<Promise<void>>();
  private closeDeadlineMs: number | undefined;
  private deadLettersInWindow = 0;
  private readonly deadLetters: DeadLetterFile;

  constructor(private readonly options: RetryQueueOptions) {
    this.deadLetters = new DeadLetterFile(options.deadLetterPath);
  }

  /** Retries the failed rows in the background, then completes the segment. */
  add(segment: FlushingSegment, failed: PendingRow[]): void {
    const tracked = this.retryAndComplete(segment, failed).catch((error: unknown) => {
      logEvent(this.options.log, "flush-error", { error: String(error) });
    });
    this.background.add(tracked);
    void tracked.then(() => this.background.delete(tracked));
  }

  /** Resolves once no retry is left. */
  async settle(): Promise<void> {
    while (this.background.size > 0) await Promise.all(this.background);
  }

  /** Retries until `deadlineMs`, then leaves what is still refused in the log. */
  async closeBy(deadlineMs: number): Promise<void> {
    this.closeDeadlineMs = deadlineMs;
    await this.settle();
  }

  /** Rows and records dead-lettered since the last call (the alert rule's input). */
  takeDeadLetters(): number {
    const count = this.deadLettersInWindow;
    this.deadLettersInWindow = 0;
    return count;
  }

  /** Appends and fsyncs the segment's dead letters. */
  async appendLetters(segment: FlushingSegment): Promise<void> {
    await this.deadLetters.append(segment.letters);
    segment.letters = [];
  }

  deadLetterRow(segment: FlushingSegment, row: AggregatedRow, table: SaltedTable, reason: string): void {
    const { tenant, deviceId, interval } = row.values;
    const points = decodeMetricPoints(row.pointsCell, deviceId, interval);
    segment.letters.push({
      segment: segment.id,
      reason,
      table: table.store.name,
      row: { tenant, deviceId, interval, points },
    });
    this.countDeadLetter("row");
    logEvent(this.options.log, "dead-letter", {
      segment: segment.id,
      table: table.store.name,
      points: points.length,
      reason,
    });
  }

  countDeadLetter(kind: "row" | "record"): void {
    this.options.metrics.deadLetters.inc({ kind });
    this.deadLettersInWindow++;
  }

  /**
   * Retries the failed rows with backoff until the store takes them; a row still refused after
   * `deadLetterAfterAttempts` while the store took other rows is dead-lettered. Then completes.
   */
  private async retryAndComplete(segment: FlushingSegment, failed: PendingRow[]): Promise<void> {
    const { writer, log } = this.options;
    const limit = this.options.deadLetterAfterAttempts ?? DEFAULT_DEAD_LETTER_AFTER_ATTEMPTS;
    let pending = failed;
    for (let attempt = 0; ; attempt++) {
      pending = this.stillWritten(segment, pending).filter((row) => {
        if (row.attempts < limit || writer.successes(row.table) <= row.successesAtFirstFailure) return true;
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
        (await this.options.complete(segment).then(
          () => true,
          (error: unknown) => {
            logEvent(log, "segment-complete-retry", { segment: segment.id, error: String(error) });
            return false;
          },
        ))
      ) {
        return;
      }
      if (this.closeDeadlineMs !== undefined && Date.now() > this.closeDeadlineMs) {
        logEvent(log, "left-in-log", { segment: segment.id, rows: pending.length });
        this.options.leaveInLog(segment.id);
        return;
      }
      if (pending.length > 0) {
        logEvent(log, "store-write-retry", {
          segment: segment.id,
          failedRows: pending.length,
          table: pending[0]!.table.store.name,
          reason: pending[0]!.reason,
        });
      }
      await sleep(Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** attempt));
      if (pending.length > 0) pending = await writer.retry(this.stillWritten(segment, pending));
    }
  }

  /** The rows whose table is still written: a phase that stopped writing a table drops its retries. */
  private stillWritten(segment: FlushingSegment, pending: PendingRow[]): PendingRow[] {
    const tables = new Set(this.options.writeTables());
    const kept = pending.filter((row) => tables.has(row.table));
    if (kept.length < pending.length) {
      const dropped = pending.filter((row) => !tables.has(row.table));
      logEvent(this.options.log, "table-no-longer-written", {
        segment: segment.id,
        table: dropped[0]!.table.store.name,
        rows: dropped.length,
      });
    }
    return kept;
  }
}

/**
 * What the pipeline admits before a request is logged: its Idempotency-Key (remembered until its
 * segment is flushed, then looked up in the journal) and its points against the cap on points
 * acknowledged but not yet in the store. A store that falls behind makes ingest answer 503 instead
 * of letting memory and the log grow without bound.
 */
import type { IdempotencyJournal, IdempotencyRecord } from "../wal/idempotency-journal.js";
import { type IdempotencyCheck, IdempotencyKeys } from "./idempotency.js";

export const DEFAULT_MAX_PENDING_POINTS = 2_000_000;

/** A request was refused because too many acknowledged points wait for their flush (the store is behind). */
export class PendingPointsFull extends Error {
  override readonly name = "PendingPointsFull";
}

export class WriteAdmission {
  private pending = 0;
  private readonly keys: IdempotencyKeys;

  constructor(
    journal: IdempotencyJournal,
    private readonly maxPendingPoints = DEFAULT_MAX_PENDING_POINTS,
    idempotencyWindowMs?: number,
  ) {
    this.keys = new IdempotencyKeys(journal, idempotencyWindowMs);
  }

  /** Acknowledged points not yet in the store (plus those of requests being appended now). */
  get pendingPoints(): number {
    return this.pending;
  }

  /** How long an Idempotency-Key is remembered. */
  get idempotencyWindowMs(): number {
    return this.keys.windowMs;
  }

  /** Whether a request with this key was answered (with this body or another), or is being processed now. */
  checkKey(key: string, fingerprint: string): IdempotencyCheck {
    return this.keys.check(key, fingerprint);
  }

  /** Runs `task` with the key marked in flight, so a concurrent retry of the request is told to wait. */
  async whileProcessing<T>(key: string, task: () => Promise<T>): Promise<T> {
    this.keys.begin(key);
    try {
      return await task();
    } finally {
      this.keys.end(key);
    }
  }

  /** Counts the points as pending; throws `PendingPointsFull` when they would pass the cap (checked and counted in one step). */
  reserve(count: number): void {
    if (this.pending + count > this.maxPendingPoints) {
      throw new PendingPointsFull("the store is behind: too many points wait for their flush");
    }
    this.pending += count;
  }

  /** Points found in a log segment left behind: pending until their replay is written. */
  addReplayed(count: number): void {
    this.pending += count;
  }

  /** The points are in the store (or dead-lettered), or were never logged. */
  release(count: number): void {
    this.pending -= count;
  }

  /** The request was acknowledged (its log record is durable). */
  remember(record: IdempotencyRecord): void {
    this.keys.remember(record);
  }

  /** The keys are in the journal now (their segment is being deleted). */
  journaled(records: readonly IdempotencyRecord[]): void {
    this.keys.journaled(records);
  }
}

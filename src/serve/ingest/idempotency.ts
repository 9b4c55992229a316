/**
 * `Idempotency-Key` (IETF draft-ietf-httpapi-idempotency-key-header): a client that retries a
 * request with the same key within the window gets the first answer again and stores nothing new.
 * Only acknowledged requests are remembered — a 4xx/429/503 stored nothing, so its retry is
 * processed afresh. A key is scoped by the caller's tenant, and bound to the request's fingerprint
 * (format and body): the same key with another body is refused (422), and a retry that arrives
 * while the first is still being processed gets 409.
 *
 * Keys of requests still in the write-ahead log are kept here in memory (they are durable in
 * their log records); once a segment is flushed, its keys move to the journal on disk.
 */
import { createHash } from "node:crypto";
import type { IdempotencyJournal, IdempotencyRecord } from "../wal/idempotency-journal.js";
import type { IngestBodyFormat } from "./points/ingest-body.js";

export const DEFAULT_IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export type IdempotencyCheck =
  | { state: "new" }
  | { state: "done"; record: IdempotencyRecord }
  | { state: "other-request"; record: IdempotencyRecord }
  | { state: "in-flight" };

/**
 * The key in the header, or undefined when there is none. The draft makes it a structured-field
 * string (`"8e03978e-…"`); a bare token is taken too. Throws a RangeError naming what is allowed.
 */
export function parseIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header.join(",") : header;
  const key = /^"(.*)"$/.exec(text.trim())?.[1] ?? text.trim();
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new RangeError("Idempotency-Key: expected 1–255 visible ASCII characters, e.g. a UUID in quotes");
  }
  return key;
}

/**
 * The key as remembered: scoped by the tenants the request's points belong to (with credentials,
 * the caller's tenant), so one tenant's keys never match another's, with or without `--auth`.
 */
export function scopedIdempotencyKey(tenants: Iterable<string>, key: string): string {
  return `${[...tenants].sort().join(",")}\n${key}`;
}

export function requestFingerprint(format: IngestBodyFormat, body: Buffer): string {
  return createHash("sha256").update(format).update("\n").update(body).digest("base64url");
}

export class IdempotencyKeys {
  /** Acknowledged keys whose log segment has not been flushed yet. */
  private readonly recent = new Map<string, IdempotencyRecord>();
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly journal: IdempotencyJournal,
    readonly windowMs: number = DEFAULT_IDEMPOTENCY_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {
    if (!(Number.isFinite(windowMs) && windowMs > 0)) {
      throw new RangeError(`idempotency window ${windowMs} ms: expected a duration > 0`);
    }
  }

  check(key: string, fingerprint: string): IdempotencyCheck {
    const record = this.find(key);
    if (record !== undefined) {
      return record.fingerprint === fingerprint
        ? { state: "done", record }
        : { state: "other-request", record };
    }
    return this.inFlight.has(key) ? { state: "in-flight" } : { state: "new" };
  }

  begin(key: string): void {
    this.inFlight.add(key);
  }

  end(key: string): void {
    this.inFlight.delete(key);
  }

  /** The request was acknowledged (its log record is durable). */
  remember(record: IdempotencyRecord): void {
    this.recent.set(record.key, record);
  }

  /** The keys are in the journal now (their segment is being deleted). */
  journaled(records: readonly IdempotencyRecord[]): void {
    for (const record of records) {
      if (this.recent.get(record.key) === record) this.recent.delete(record.key);
    }
  }

  private find(key: string): IdempotencyRecord | undefined {
    const record = this.recent.get(key) ?? this.journal.get(key);
    return record !== undefined && record.atMs + this.windowMs > this.now() ? record : undefined;
  }
}

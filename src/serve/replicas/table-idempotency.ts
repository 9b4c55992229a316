/**
 * Idempotency-Keys shared by every replica writing a table: one row per key in keyspread's reserved
 * range, whose `claim` cell says which replica took the request and whether it is acknowledged.
 * Every change is a conditional mutation on the exact bytes read (CheckAndMutateRow), so one
 * replica at a time owns a key:
 *
 * 1. `claim` before the request is logged: a `pending` claim (owner, deadline `pendingMs` ahead)
 *    where there is none, or where the last one expired (a done claim past the window, a pending
 *    claim past its deadline). A live pending claim answers 409 (retry shortly), a done one replays.
 * 2. The owner logs the request (fsync), then `confirm`s: pending → done, only if the claim is still
 *    exactly its pending claim. Only then are the points buffered and the request acknowledged. A
 *    confirm that finds the claim taken over (the owner stalled past the deadline, a retry elsewhere
 *    took it) leaves the points out of the buffer: the other replica stores them.
 * 3. At a replay after a crash, a logged request is rewritten only if its claim is still this
 *    replica's (`confirmReplayed`, pending or done). A replica that died between the log's fsync
 *    and the confirm either gets its claim back at the replay (nobody retried) or finds it taken
 *    (a retry elsewhere stored the points), never both: the claim has one owner.
 *
 * The local journal stays a cache of this replica's own keys. A claim row expires with the window
 * (`sweep` deletes expired rows, conditionally again, so a claim renewed meanwhile stays).
 */
import { createHash } from "node:crypto";
import type { Store } from "../../store/store.js";
import { RESERVED_PREFIX } from "../../table/schema-guard.js";
import type { IdempotencyRecord } from "../wal/idempotency-journal.js";

export const IDEMPOTENCY_ROW_PREFIX = Buffer.concat([RESERVED_PREFIX, Buffer.from("keyspread:idempotency:")]);
const CLAIM = "claim";
/** How long a pending claim holds off other replicas: far above a log fsync; after it, a retry may take the key over. */
export const DEFAULT_PENDING_CLAIM_MS = 10_000;

type ClaimCell = {
  replica: string;
  fingerprint: string;
  /** Acknowledged at (done), or claimed at (pending). */
  atMs: number;
  accepted: number;
} & (
  | { state: "done" }
  | {
      state: "pending";
      /** The deadline after which the key may be taken over. */
      untilMs: number;
    }
);

export type TableClaim =
  | { state: "claimed" }
  | { state: "done"; record: IdempotencyRecord }
  | { state: "other-request" }
  | { state: "in-flight"; retryAfterSeconds: number };

const rowKey = (key: string) =>
  Buffer.concat([IDEMPOTENCY_ROW_PREFIX, Buffer.from(createHash("sha256").update(key).digest("base64url"))]);
const encode = (cell: ClaimCell) => Buffer.from(JSON.stringify(cell));

export class TableIdempotency {
  /** This replica's pending claims, by scoped key: the exact bytes a confirm or release is conditioned on. */
  private readonly pending = new Map<string, Buffer>();

  constructor(
    private readonly store: Store,
    readonly replica: string,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
    private readonly pendingMs = DEFAULT_PENDING_CLAIM_MS,
  ) {}

  /** Claims the key for this replica, or says why not (answered elsewhere, another body, in flight). */
  async claim(key: string, fingerprint: string): Promise<TableClaim> {
    const row = rowKey(key);
    for (;;) {
      const cell = await this.read(row);
      const nowMs = this.now();
      if (cell !== null) {
        const held = JSON.parse(cell.toString()) as ClaimCell;
        if (held.state === "done" && held.atMs + this.windowMs > nowMs) {
          return held.fingerprint === fingerprint
            ? { state: "done", record: { key, fingerprint, accepted: held.accepted, atMs: held.atMs } }
            : { state: "other-request" };
        }
        if (held.state === "pending" && held.untilMs > nowMs) {
          if (held.fingerprint !== fingerprint) return { state: "other-request" };
          return {
            state: "in-flight",
            retryAfterSeconds: Math.max(1, Math.ceil((held.untilMs - nowMs) / 1000)),
          };
        }
      }
      const mine = encode({
        replica: this.replica,
        fingerprint,
        state: "pending",
        atMs: nowMs,
        accepted: 0,
        untilMs: nowMs + this.pendingMs,
      });
      if (await this.applied(put(row, mine), cell, mine)) {
        this.pending.set(key, mine);
        return { state: "claimed" };
      }
    }
  }

  /** The request is logged: its claim becomes done if it is still this replica's pending claim. */
  async confirm(record: IdempotencyRecord): Promise<boolean> {
    const mine = this.pending.get(record.key);
    if (mine === undefined) return false;
    this.pending.delete(record.key);
    const done = this.doneCell(record);
    return this.applied(put(rowKey(record.key), done), mine, done);
  }

  /** The request was not acknowledged (refused, or its log append failed): its pending claim goes. */
  async release(key: string): Promise<void> {
    const mine = this.pending.get(key);
    if (mine === undefined) return;
    this.pending.delete(key);
    // A failure leaves the claim to expire at its deadline.
    await this.store
      .checkAndMutate({ type: "delete", key: rowKey(key) }, { qualifier: CLAIM, equals: mine })
      .catch(() => false);
  }

  /** At a replay: whether a logged request is still this replica's to store (its claim marked done if it was pending). */
  async confirmReplayed(record: IdempotencyRecord): Promise<boolean> {
    const row = rowKey(record.key);
    for (;;) {
      const cell = await this.read(row);
      if (cell !== null) {
        const held = JSON.parse(cell.toString()) as ClaimCell;
        if (held.replica !== this.replica) return false;
        if (held.state === "done") return true;
      }
      const done = this.doneCell(record);
      if (await this.applied(put(row, done), cell, done)) return true;
    }
  }

  /** Deletes the claim rows that expired (done past the window, pending past deadline and window); returns how many. */
  async sweep(): Promise<number> {
    const end = Buffer.from(IDEMPOTENCY_ROW_PREFIX);
    end[end.length - 1] = end[end.length - 1]! + 1;
    const nowMs = this.now();
    let deleted = 0;
    for await (const row of this.store.read([{ start: IDEMPOTENCY_ROW_PREFIX, end }])) {
      const cell = row.cells.get(CLAIM);
      if (cell === undefined) continue;
      const held = JSON.parse(cell.toString()) as ClaimCell;
      if ((held.state === "pending" ? held.untilMs : held.atMs) + this.windowMs > nowMs) continue;
      const applied = await this.store.checkAndMutate(
        { type: "delete", key: row.key },
        { qualifier: CLAIM, equals: cell },
      );
      if (applied) deleted++;
    }
    return deleted;
  }

  private doneCell(record: IdempotencyRecord): Buffer {
    return encode({
      replica: this.replica,
      fingerprint: record.fingerprint,
      state: "done",
      atMs: record.atMs,
      accepted: record.accepted,
    });
  }

  /**
   * Puts `cell` if the claim is `expected`; when the store's answer was lost (it does not retry a
   * conditional mutation), reads the claim back: it was applied if the claim is now `cell`.
   */
  private async applied(
    mutation: ReturnType<typeof put>,
    expected: Buffer | null,
    cell: Buffer,
  ): Promise<boolean> {
    try {
      return await this.store.checkAndMutate(mutation, { qualifier: CLAIM, equals: expected });
    } catch (error) {
      const now = await this.read(mutation.key).catch(() => {
        throw error;
      });
      return now?.equals(cell) ?? false;
    }
  }

  private async read(row: Buffer): Promise<Buffer | null> {
    return (await this.store.get(row))?.cells.get(CLAIM) ?? null;
  }
}

function put(key: Buffer, cell: Buffer) {
  return { type: "put" as const, key, cells: new Map([[CLAIM, cell]]) };
}

/**
 * A task's hold on one shard. Claiming, renewing, checkpointing and releasing are each one
 * conditional mutation (CheckAndMutateRow) on the shard row whose condition is the lease cell's
 * exact bytes as this task last wrote them: once another task has taken a lapsed lease, every
 * write of the old holder fails, so a stale task never moves another task's progress. The holder
 * renews in the background; before each batch it checks its own clock, and once its lease may
 * have lapsed it writes nothing until a renewal succeeds — a task frozen past its lease finds out
 * it lost the shard before it writes another row.
 */
import { RetryableStoreError, type Store } from "../../store/store.js";
import {
  encodeJson,
  type JobKind,
  LEASE,
  PROGRESS,
  type ShardLease,
  type ShardProgress,
  type ShardRecord,
  shardRowKey,
} from "./job-rows.js";

/** How long a lease lasts and whose clock says so: injectable, so tests need no real waiting. */
export interface LeaseTiming {
  leaseMs: number;
  now(): number;
}

export const DEFAULT_LEASE_MS = 30_000;

/** The shard went to another task (or this one's lease lapsed and could not be renewed). */
export class ShardLostError extends Error {
  override readonly name = "ShardLostError";
  constructor(readonly shard: number) {
    super(`shard ${shard}: this task's lease lapsed and another task holds it now`);
  }
}

export interface Holder {
  task: number;
  host: string;
}

export class HeldShard {
  private bytes: Buffer;
  private lease: ShardLease;
  private lostIt = false;
  /** The progress this holder last recorded. */
  lastProgress: ShardProgress | undefined;
  /** Lease writes one at a time: each is conditional on the bytes the previous one wrote. */
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private readonly aborter = new AbortController();

  private constructor(
    private readonly store: Store,
    private readonly kind: JobKind,
    readonly index: number,
    private readonly timing: LeaseTiming,
    lease: ShardLease,
  ) {
    this.lease = lease;
    this.bytes = encodeJson(lease);
  }

  /** Takes `shard` if its lease is still what was read (absent, released or lapsed); undefined when another task won. */
  static async claim(
    store: Store,
    kind: JobKind,
    shard: ShardRecord,
    holder: Holder,
    timing: LeaseTiming,
  ): Promise<HeldShard | undefined> {
    const now = timing.now();
    const lease: ShardLease = {
      token: `${holder.task}-${Math.random().toString(36).slice(2, 12)}`,
      task: holder.task,
      host: holder.host,
      claimedAt: now,
      expiresAt: now + timing.leaseMs,
      rowsAtClaim: shard.progress?.rows ?? 0,
    };
    const held = new HeldShard(store, kind, shard.index, timing, lease);
    const won = await held.conditionalPut(shard.leaseBytes ?? null, held.bytes);
    return won ? held : undefined;
  }

  get lost(): boolean {
    return this.lostIt;
  }

  /** Aborts when the shard is found lost. */
  get signal(): AbortSignal {
    return this.aborter.signal;
  }

  get token(): string {
    return this.lease.token;
  }

  /** Renews every third of the lease until stopped. */
  startRenewing(): void {
    this.timer = setInterval(() => {
      this.renew().catch(() => {});
    }, this.timing.leaseMs / 3);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Before a write: throws ShardLostError unless the lease surely still holds (renewing it when half gone). */
  async ensureHeld(): Promise<void> {
    if (!this.lostIt && this.timing.now() < this.lease.expiresAt - this.timing.leaseMs / 2) return;
    if (!(await this.renew())) throw new ShardLostError(this.index);
  }

  /** Extends the lease; false once the shard is lost. */
  renew(): Promise<boolean> {
    return this.write(undefined, false);
  }

  /** Records progress and extends the lease in one fenced write; throws ShardLostError when lost. */
  async checkpoint(progress: ShardProgress): Promise<void> {
    if (!(await this.write(progress, false))) throw new ShardLostError(this.index);
  }

  /** Records the final progress (done or failed) and lets the lease go; throws ShardLostError when lost. */
  async release(progress: ShardProgress): Promise<void> {
    this.stop();
    if (!(await this.write(progress, true))) throw new ShardLostError(this.index);
  }

  private write(progress: ShardProgress | undefined, release: boolean): Promise<boolean> {
    const next = this.queue.then(async () => {
      if (this.lostIt) return false;
      const lease = { ...this.lease, expiresAt: release ? 0 : this.timing.now() + this.timing.leaseMs };
      const bytes = encodeJson(lease);
      const progressCells = progress === undefined ? [] : [[PROGRESS, encodeJson(progress)] as const];
      if (await this.conditionalPut(this.bytes, bytes, progressCells)) {
        this.lease = lease;
        this.bytes = bytes;
        if (progress !== undefined) this.lastProgress = progress;
        return true;
      }
      this.lostIt = true;
      this.stop();
      this.aborter.abort(new ShardLostError(this.index));
      return false;
    });
    this.queue = next.catch(() => {});
    return next;
  }

  /**
   * One CheckAndMutateRow on the shard row, writing `lease` (and `others`), conditional on the lease cell being `expected`. An
   * answer lost in transit is settled by reading the row: it holds either our new lease (applied)
   * or the old one (not applied, tried again) or another task's (lost).
   */
  private async conditionalPut(
    expected: Buffer | null,
    lease: Buffer,
    others: readonly (readonly [string, Buffer])[] = [],
  ): Promise<boolean> {
    const key = shardRowKey(this.kind, this.index);
    const cells = new Map([[LEASE, lease], ...others]);
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.store.checkAndMutate(
          { type: "put", key, cells },
          { qualifier: LEASE, equals: expected },
        );
      } catch (error) {
        if (!(error instanceof RetryableStoreError) || attempt >= 3) throw error;
        const now = (await this.store.get(key))?.cells.get(LEASE) ?? null;
        if (now?.equals(lease)) return true;
        const unchanged = now === null || expected === null ? now === expected : now.equals(expected);
        if (!unchanged) return false;
      }
    }
  }
}

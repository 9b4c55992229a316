/**
 * The replicas writing one table, registered in the table itself: one row per replica id in
 * keyspread's reserved range (after the schema row, never reached by a data read), whose `lease`
 * cell names the holder (host, log directory, process) and its last heartbeat. Every change is a
 * conditional mutation on the exact bytes read (Bigtable's CheckAndMutateRow), so two processes
 * never both hold one id:
 * - at start a replica claims its id: an absent row, its own earlier lease (same host and log
 *   directory: the log's lock proves that process is gone), or a lease whose heartbeat is older
 *   than `leaseMs`; a live lease of another holder (a copied log directory, a volume attached
 *   twice) is refused, naming that holder;
 * - every `heartbeatMs` it renews its lease and reads the others': the live replicas (heartbeat
 *   within `leaseMs`) divide the tenants' quotas and must apply a migration phase;
 * - on a graceful stop it ends its lease (heartbeat 0), so the others count one replica fewer at once.
 *
 * Heartbeats are compared across hosts: their clocks must agree within a small part of `leaseMs`
 * (NTP keeps them within milliseconds).
 */
import { hostname } from "node:os";
import type { Store } from "../../store/store.js";
import { RESERVED_PREFIX } from "../../table/schema-guard.js";
import { logEvent } from "../observe/service-events.js";

export const REPLICA_ROW_PREFIX = Buffer.concat([RESERVED_PREFIX, Buffer.from("keyspread:replica:")]);
const LEASE = "lease";
export const DEFAULT_HEARTBEAT_MS = 2_000;
export const DEFAULT_LEASE_MS = 10_000;

export interface ReplicaLease {
  replica: string;
  host: string;
  wal: string;
  pid: number;
  /** Last heartbeat (epoch ms); 0 once the replica stopped. */
  heartbeatMs: number;
  /** How long the heartbeat holds (absent in leases written before it was recorded: the default). */
  leaseMs?: number;
}

/** Every replica's lease in `store` (stopped and expired ones too). */
export async function readLeases(store: Store): Promise<ReplicaLease[]> {
  const leases: ReplicaLease[] = [];
  const end = Buffer.from(REPLICA_ROW_PREFIX);
  end[end.length - 1] = end[end.length - 1]! + 1;
  for await (const row of store.read([{ start: REPLICA_ROW_PREFIX, end }])) {
    const cell = row.cells.get(LEASE);
    if (cell !== undefined) leases.push(JSON.parse(cell.toString()) as ReplicaLease);
  }
  return leases;
}

/** Whether the lease's heartbeat still holds at `nowMs` (read by another process: the lease says how long). */
export const leaseLive = (lease: ReplicaLease, nowMs: number): boolean =>
  lease.heartbeatMs + (lease.leaseMs ?? DEFAULT_LEASE_MS) > nowMs;

export interface ReplicaRegistryOptions {
  walDirectory: string;
  heartbeatMs?: number;
  leaseMs?: number;
  now?: () => number;
  log: (line: string) => void;
}

/** A replica id held by another live process: the id, the log directory it was read from, and the live `holder`'s lease. */
export class ReplicaIdInUse extends Error {
  override readonly name = "ReplicaIdInUse";

  constructor(
    readonly replica: string,
    readonly walDirectory: string,
    readonly holder: ReplicaLease,
    nowMs: number,
  ) {
    super(
      `replica id ${replica} (from ${walDirectory}/replica-id) is held by another live replica: ${describeHolder(holder, nowMs)}. ` +
        "Two replicas must never share a log directory: give this one its own (an empty directory makes a new id)",
    );
  }
}

const rowKey = (replica: string) => Buffer.concat([REPLICA_ROW_PREFIX, Buffer.from(replica)]);

export function describeHolder(lease: ReplicaLease, nowMs: number): string {
  return `host ${lease.host}, process ${lease.pid}, log ${lease.wal}, heartbeat ${((nowMs - lease.heartbeatMs) / 1000).toFixed(1)} s ago`;
}

export class ReplicaRegistry {
  private leaseBytes: Buffer;
  private others: ReplicaLease[] = [];
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> = Promise.resolve();
  private lost = false;
  private readonly listeners: (() => void)[] = [];
  private readonly now: () => number;
  readonly leaseMs: number;

  private constructor(
    private readonly store: Store,
    private lease: ReplicaLease,
    leaseBytes: Buffer,
    private readonly options: ReplicaRegistryOptions,
  ) {
    this.leaseBytes = leaseBytes;
    this.now = options.now ?? Date.now;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  }

  /** Claims `replica` in `store`'s registry and starts its heartbeats; throws ReplicaIdInUse naming a live holder. */
  static async join(
    store: Store,
    replica: string,
    options: ReplicaRegistryOptions,
  ): Promise<ReplicaRegistry> {
    const now = options.now ?? Date.now;
    const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    const mine: ReplicaLease = {
      replica,
      host: hostname(),
      wal: options.walDirectory,
      pid: process.pid,
      heartbeatMs: now(),
      leaseMs,
    };
    const key = rowKey(replica);
    for (let attempt = 0; attempt < 5; attempt++) {
      const cell = (await store.get(key))?.cells.get(LEASE) ?? null;
      if (cell !== null) {
        const held = JSON.parse(cell.toString()) as ReplicaLease;
        const ownEarlier = held.host === mine.host && held.wal === mine.wal;
        if (!ownEarlier && held.heartbeatMs + leaseMs > now()) {
          throw new ReplicaIdInUse(replica, options.walDirectory, held, now());
        }
      }
      mine.heartbeatMs = now();
      const bytes = Buffer.from(JSON.stringify(mine));
      const put = { type: "put" as const, key, cells: new Map([[LEASE, bytes]]) };
      if (await store.checkAndMutate(put, { qualifier: LEASE, equals: cell })) {
        const registry = new ReplicaRegistry(store, mine, bytes, options);
        await registry.readOthers();
        registry.timer = setInterval(
          () => void registry.heartbeatNow(),
          options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
        );
        registry.timer.unref();
        logEvent(options.log, "replica-joined", { replica, live: registry.liveCount() });
        return registry;
      }
    }
    throw new Error(`replica id ${replica}: its registry row kept changing under this claim; try again`);
  }

  get replica(): string {
    return this.lease.replica;
  }

  /** Whether another process took this replica's lease over. */
  get isLost(): boolean {
    return this.lost;
  }

  /** Live replicas writing the table, this one included (as of the last heartbeat). */
  liveCount(): number {
    return this.live().length;
  }

  /** Every live replica's lease, this one's first. */
  live(): ReplicaLease[] {
    const nowMs = this.now();
    return [this.lease, ...this.others.filter((lease) => lease.heartbeatMs + this.leaseMs > nowMs)];
  }

  /** Calls `listener` after every heartbeat (the live replicas may have changed). */
  onHeartbeat(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Renews the lease and reads the others' now (after any heartbeat under way). */
  heartbeatNow(): Promise<void> {
    this.beating = this.beating.then(() => this.heartbeat());
    return this.beating;
  }

  /** Stops the heartbeats and ends the lease (heartbeat 0): the others stop counting this replica at once. */
  async leave(): Promise<void> {
    clearInterval(this.timer);
    await this.beating;
    if (this.lost) return;
    await this.renew(0).catch((error: unknown) => {
      logEvent(this.options.log, "replica-leave-error", { error: String(error) });
    });
  }

  private async heartbeat(): Promise<void> {
    if (this.lost) return;
    try {
      await this.renew(this.now());
      await this.readOthers();
      for (const listener of this.listeners) listener();
    } catch (error) {
      logEvent(this.options.log, "replica-heartbeat-error", { error: String(error) });
    }
  }

  /** Rewrites the lease if it is still exactly the one this process wrote last. */
  private async renew(heartbeatMs: number): Promise<void> {
    const next = { ...this.lease, heartbeatMs };
    const bytes = Buffer.from(JSON.stringify(next));
    const key = rowKey(this.lease.replica);
    const current = async () => (await this.store.get(key))?.cells.get(LEASE);
    const applied = await this.store
      .checkAndMutate(
        { type: "put", key, cells: new Map([[LEASE, bytes]]) },
        { qualifier: LEASE, equals: this.leaseBytes },
      )
      // The answer was lost (the store does not retry a conditional mutation): the lease says whether it was applied.
      .catch(async () => (await current())?.equals(bytes) ?? false);
    if (applied) {
      this.lease = next;
      this.leaseBytes = bytes;
      return;
    }
    const cell = await current();
    const holder =
      cell === undefined ? { ...this.lease, host: "(none)" } : (JSON.parse(cell.toString()) as ReplicaLease);
    if (
      cell !== undefined &&
      holder.host === this.lease.host &&
      holder.wal === this.lease.wal &&
      holder.pid === this.lease.pid
    ) {
      // Still this process's lease (an earlier renewal whose answer was lost did apply): renew from it next time.
      this.leaseBytes = cell;
      return;
    }
    this.lost = true;
    clearInterval(this.timer);
    logEvent(this.options.log, "replica-lease-lost", {
      replica: this.lease.replica,
      holder: describeHolder(holder, this.now()),
    });
  }

  private async readOthers(): Promise<void> {
    this.others = (await readLeases(this.store)).filter((lease) => lease.replica !== this.lease.replica);
  }
}

/**
 * An indexed job's shared state, kept in the target table beside its schema row (keyspread's
 * reserved range, which no data read reaches), so every task on every machine sees one job and a
 * task retried on an empty disk resumes where the last attempt stopped:
 * - the job row: one cell per kind of job (`backfill`, `validate`), its plan as JSON;
 * - one row per shard and kind: `lease` (who holds it, until when) and `progress` (how far it got).
 */
import type { Store, StoreRow } from "../../store/store.js";
import { RESERVED_PREFIX } from "../../table/schema-guard.js";

/** `loadtest`: a load test's tasks hold their shares with the same leases (src/loadtest). */
export type JobKind = "backfill" | "validate" | "loadtest";

export const JOB_ROW_KEY = Buffer.concat([RESERVED_PREFIX, Buffer.from("keyspread:job")]);

export interface JobPlan {
  version: 1;
  kind: JobKind;
  source: string;
  target: string;
  sourceFingerprint: string;
  targetFingerprint: string;
  shards: number;
  /** `shards − 1` ascending source keys (hex): shard K (0-based) reads [key K−1, key K). */
  sourceSplitKeys: string[];
  /** Validate: the same for the target's keys (each side is cut by its own keys). */
  targetSplitKeys?: string[];
  /** The task count of the task that wrote the plan (the shard count defaults to 8× it). */
  tasks: number;
  /** Milliseconds since the epoch. */
  createdAt: number;
}

/** Who holds a shard and until when (milliseconds since the epoch, by the holder's clock). */
export interface ShardLease {
  /** Unique per claim: a restarted task with the same index holds a new token. */
  token: string;
  task: number;
  host: string;
  claimedAt: number;
  expiresAt: number;
  /** The shard's rows done when it was claimed (the claim's rate counts from there). */
  rowsAtClaim: number;
}

export interface ShardProgress {
  /** Rows done so far (backfill: source rows read; validate: rows checked on both sides). */
  rows: number;
  complete: boolean;
  /** Why the shard failed (not retried unless asked). */
  failed?: string;
  updatedAt: number;
  /** Backfill: its checkpoint; validate: the shard's report. */
  detail: unknown;
}

/** A shard as the table holds it: no row yet means free and not started. */
export interface ShardRecord {
  /** 0-based. */
  index: number;
  lease?: ShardLease;
  /** The lease cell's exact bytes: a claim or a fenced write is conditional on them. */
  leaseBytes?: Buffer;
  progress?: ShardProgress;
}

export const LEASE = "lease";
export const PROGRESS = "progress";

export function shardRowKey(kind: JobKind, index: number): Buffer {
  return Buffer.concat([JOB_ROW_KEY, Buffer.from(`:${kind}:${String(index).padStart(5, "0")}`)]);
}

export function encodeJson(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}

/** Every shard of the job, in order, from one read of its rows. */
export async function readShards(store: Store, kind: JobKind, shards: number): Promise<ShardRecord[]> {
  const records: ShardRecord[] = Array.from({ length: shards }, (_, index) => ({ index }));
  const start = shardRowKey(kind, 0);
  const end = shardRowKey(kind, shards);
  for await (const row of store.read([{ start, end }])) {
    const index = Number(row.key.subarray(start.length - 5).toString());
    if (Number.isInteger(index) && index < shards) records[index] = shardRecord(index, row);
  }
  return records;
}

export async function readShard(store: Store, kind: JobKind, index: number): Promise<ShardRecord> {
  const row = await store.get(shardRowKey(kind, index));
  return row === undefined ? { index } : shardRecord(index, row);
}

function shardRecord(index: number, row: StoreRow): ShardRecord {
  const leaseBytes = row.cells.get(LEASE);
  const progress = row.cells.get(PROGRESS);
  return {
    index,
    ...(leaseBytes === undefined ? {} : { lease: JSON.parse(leaseBytes.toString()), leaseBytes }),
    ...(progress === undefined ? {} : { progress: JSON.parse(progress.toString()) }),
  };
}

/** The job row's plans, by kind. */
export async function readPlans(store: Store): Promise<Partial<Record<JobKind, JobPlan>>> {
  const row = await store.get(JOB_ROW_KEY);
  const plans: Partial<Record<JobKind, JobPlan>> = {};
  for (const kind of ["backfill", "validate"] as const) {
    const cell = row?.cells.get(kind);
    if (cell !== undefined) plans[kind] = JSON.parse(cell.toString()) as JobPlan;
  }
  return plans;
}

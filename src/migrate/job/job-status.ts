/**
 * An indexed job as its table holds it (`keyspread migrate status`): how many shards are done,
 * claimed, free and failed; rows so far, the rate since the plan was written and the time left at
 * that rate; the slowest shard in progress; for a validation, the differences found.
 */
import type { Store } from "../../store/store.js";
import {
  type JobKind,
  type JobPlan,
  readPlans,
  readShards,
  type ShardLease,
  type ShardRecord,
} from "./job-rows.js";

export interface JobStatus {
  kind: JobKind;
  source: string;
  target: string;
  createdAt: string;
  shards: { total: number; done: number; claimed: number; free: number; failed: number };
  rows: number;
  /** Since the plan was written; null before any progress. */
  rowsPerSecond: number | null;
  /** Rows left (estimated from the done shards' mean: shards are cut from sampled keys, so alike in rows) at that rate; null when unknown. */
  etaSeconds: number | null;
  /** The claimed shard moving slowest since it was claimed. */
  slowest: { shard: number; task: number; host: string; rows: number; rowsPerSecond: number } | null;
  failures: { shard: number; reason: string }[];
  /** Validate: differences over the done shards, and the first ones listed. */
  differences?: { count: number; first: unknown[] };
}

const LISTED = 20;

export async function jobStatuses(store: Store, now: number = Date.now()): Promise<JobStatus[]> {
  const plans = await readPlans(store);
  const statuses: JobStatus[] = [];
  for (const plan of Object.values(plans)) {
    statuses.push(summarize(plan, await readShards(store, plan.kind, plan.shards), now));
  }
  return statuses;
}

export function summarize(plan: JobPlan, shards: ShardRecord[], now: number): JobStatus {
  const done = shards.flatMap(({ progress }) => (progress?.complete ? [progress] : []));
  const failures = shards.flatMap(({ index, progress }) =>
    !progress?.complete && progress?.failed !== undefined ? [{ shard: index, reason: progress.failed }] : [],
  );
  const claimed = shards.flatMap((s) =>
    !s.progress?.complete &&
    s.progress?.failed === undefined &&
    s.lease !== undefined &&
    s.lease.expiresAt > now
      ? [{ ...s, lease: s.lease }]
      : [],
  );
  const rows = shards.reduce((sum, s) => sum + (s.progress?.rows ?? 0), 0);
  const lastUpdate = Math.max(0, ...shards.map((s) => s.progress?.updatedAt ?? 0));
  const seconds = (lastUpdate - plan.createdAt) / 1000;
  const rowsPerSecond = rows > 0 && seconds > 0 ? rows / seconds : null;
  const doneRows = done.reduce((sum, progress) => sum + progress.rows, 0);
  const left = done.length === 0 ? null : Math.max(0, (doneRows / done.length) * shards.length - rows);
  const status: JobStatus = {
    kind: plan.kind,
    source: plan.source,
    target: plan.target,
    createdAt: new Date(plan.createdAt).toISOString(),
    shards: {
      total: shards.length,
      done: done.length,
      claimed: claimed.length,
      free: shards.length - done.length - failures.length - claimed.length,
      failed: failures.length,
    },
    rows,
    rowsPerSecond: rowsPerSecond === null ? null : Math.round(rowsPerSecond),
    etaSeconds:
      done.length === shards.length
        ? 0
        : left === null || rowsPerSecond === null
          ? null
          : Math.round(left / rowsPerSecond),
    slowest: slowest(claimed, now),
    failures,
  };
  if (plan.kind === "validate") {
    const reports = done.map(
      (progress) => progress.detail as { differenceCount: number; differences: unknown[] },
    );
    status.differences = {
      count: reports.reduce((sum, r) => sum + r.differenceCount, 0),
      first: reports.flatMap((r) => r.differences).slice(0, LISTED),
    };
  }
  return status;
}

function slowest(claimed: (ShardRecord & { lease: ShardLease })[], now: number): JobStatus["slowest"] {
  let found: JobStatus["slowest"] = null;
  for (const shard of claimed) {
    const { lease } = shard;
    const rows = (shard.progress?.rows ?? 0) - lease.rowsAtClaim;
    const rate = rows / Math.max((now - lease.claimedAt) / 1000, 0.001);
    if (found === null || rate < found.rowsPerSecond) {
      found = {
        shard: shard.index,
        task: lease.task,
        host: lease.host,
        rows: shard.progress?.rows ?? 0,
        rowsPerSecond: Math.round(rate),
      };
    }
  }
  return found;
}

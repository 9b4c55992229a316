/**
 * What `migrate begin|advance|status --migration bigtable:TABLE` print of a table-held record:
 * where it stands, and each live replica's report of what it applied.
 */
import type { Store } from "../../store/store.js";
import { type FollowingReplica, replicasBehind } from "./migration-advance.js";
import type { MigrationRecord } from "./migration-record.js";
import { readTableRecord } from "./table-migration-record.js";

/** The live replicas that must follow a table-held record (the service's replica registry knows them). */
export type ListFollowingReplicas = (store: Store) => Promise<FollowingReplica[]>;

export function replicasSummary(
  migration: string,
  record: MigrationRecord,
  live: readonly FollowingReplica[],
) {
  return {
    migration,
    phase: record.phase,
    revision: record.revision,
    old: record.old.address,
    new: record.new.address,
    applied: live.length > 0 && replicasBehind(record, live).length === 0,
    replicas: live.map(({ replica, host, pid, report }) => ({
      replica,
      host,
      pid,
      ...(report
        ? {
            revision: report.revision,
            phase: report.phase,
            applied: report.applied,
            completeBelow: report.completeBelow,
            ...(report.error === undefined ? {} : { error: report.error }),
          }
        : {}),
    })),
  };
}

/** The summary and the replicas behind (for scripts, after a refused or unapplied step); undefined when the table holds no record. */
export async function replicasStanding(store: Store, migration: string, following: ListFollowingReplicas) {
  const record = await readTableRecord(store).catch(() => undefined);
  if (record === undefined) return undefined;
  const live = await following(store);
  const behind = replicasBehind(record, live).map(({ replica }) => replica);
  return { ...replicasSummary(migration, record, live), behind };
}

/**
 * The replicas that must follow a table-held migration record: every live replica in the table's
 * registry (`replicas/replica-registry.ts`), each with its report of what it applied
 * (`table-migration-record.ts`). A replica that stopped gracefully or whose lease ran out is not
 * waited for: it applies the record's phase before it writes again, at its next start.
 */
import type { FollowingReplica } from "../../migrate/live/migration-advance.js";
import { readReplicaReports } from "../../migrate/live/table-migration-record.js";
import type { Store } from "../../store/store.js";
import { leaseLive, readLeases } from "../replicas/replica-registry.js";

export async function followingReplicas(store: Store, nowMs = Date.now()): Promise<FollowingReplica[]> {
  const [leases, reports] = await Promise.all([readLeases(store), readReplicaReports(store)]);
  return leases
    .filter((lease) => leaseLive(lease, nowMs))
    .map(({ replica, host, pid }) => {
      const report = reports.get(replica);
      return { replica, host, pid, ...(report ? { report } : {}) };
    });
}

/**
 * Moves a live re-keying whose record is held in the table several `keyspread serve` replicas
 * write (`table-migration-record.ts`) one phase: every live replica in the table's registry must
 * have applied the current phase; then waits until each applied the next, and names those that
 * have not.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Store } from "../../store/store.js";
import type { AdvanceLiveMigration } from "./advance-live-migration.js";
import { LiveMigrationError } from "./live-migration-error.js";
import { advanceMigration, type FollowingReplica, replicasBehind } from "./migration-advance.js";
import type { MigrationRecord } from "./migration-record.js";
import { requireTableRecord } from "./record-table.js";
import type { ListFollowingReplicas } from "./replicas-summary.js";
import { updateTableRecord } from "./table-migration-record.js";

const POLL_MS = 200;

export interface AdvanceReplicas extends AdvanceLiveMigration {
  /** The table holding the record (`migration` names it). */
  store: Store;
  followingReplicas: ListFollowingReplicas;
}

/** The record and the live replicas once each applied the step (or at once, without waiting); `already` when it was in `to` before. */
export async function advanceReplicas(
  options: AdvanceReplicas,
): Promise<{ record: MigrationRecord; already: boolean; live: FollowingReplica[] }> {
  const { store, migration } = options;
  const replicas = await options.followingReplicas(store);
  let already = false;
  const record = await updateTableRecord(store, (current) => {
    const result = advanceMigration(current, options.from, options.to, {
      force: options.force,
      file: migration,
      replicas,
    });
    already = result.already;
    return result.record;
  });
  const live =
    options.waitSeconds > 0 ? await waitForReplicas(options, record, options.waitSeconds) : replicas;
  return { record, already, live };
}

/** Waits until every live replica reports `record`'s revision applied; fails naming those that have not, after `seconds`. */
async function waitForReplicas(
  { store, migration, followingReplicas }: AdvanceReplicas,
  record: MigrationRecord,
  seconds: number,
): Promise<FollowingReplica[]> {
  const deadline = Date.now() + seconds * 1000;
  const { phase, revision } = record;
  for (;;) {
    const current = await requireTableRecord(store, migration);
    if (current.revision !== revision) {
      throw new LiveMigrationError({
        code: "moved-on",
        migration,
        phase: current.phase,
        revision: current.revision,
      });
    }
    const live = await followingReplicas(store);
    const behind = replicasBehind(record, live);
    if (live.length > 0 && behind.length === 0) return live;
    if (Date.now() > deadline) {
      throw new LiveMigrationError({
        code: "replicas-not-applied",
        phase,
        revision,
        seconds,
        live: live.length,
        behind,
      });
    }
    await sleep(POLL_MS);
  }
}

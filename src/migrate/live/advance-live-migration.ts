/**
 * Moves a live re-keying recorded in a file one phase (`migration-advance.ts` checks the step and
 * its guards), then waits until the service following the file reports it applied.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { advanceMigration } from "./migration-advance.js";
import type { MigrationPhase } from "./migration-phases.js";
import {
  type MigrationRecord,
  readMigrationRecord,
  serviceGone,
  updateMigrationRecord,
} from "./migration-record.js";

const POLL_MS = 100;

export interface AdvanceLiveMigration {
  /** The record's file. */
  migration: string;
  from: MigrationPhase;
  to: MigrationPhase;
  /** Skip the guards (the service applied the phase; a clean validation before reads move). */
  force?: boolean;
  /** How long to wait for the service to apply it (0: do not wait). */
  waitSeconds: number;
}

/** The record once the service applied the step (or at once, without waiting); `already` when it was in `to` before. */
export async function advanceLiveMigration(
  options: AdvanceLiveMigration,
): Promise<{ record: MigrationRecord; already: boolean }> {
  const file = options.migration;
  let already = false;
  const record = await updateMigrationRecord(file, (current) => {
    const result = advanceMigration(current, options.from, options.to, {
      force: options.force,
      file,
      serviceRunning: (service) => !serviceGone(service),
    });
    already = result.already;
    return result.record;
  });
  if (record === undefined) throw new Error(`no migration record ${file}`);
  const applied =
    options.waitSeconds > 0 ? await waitForService(file, record.revision, options.waitSeconds) : record;
  return { record: applied, already };
}

/** Waits until the service reports `revision` applied; fails with its error, or after `seconds`. */
export async function waitForService(
  file: string,
  revision: number,
  seconds: number,
): Promise<MigrationRecord> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const record = await readMigrationRecord(file);
    if (record === undefined) throw new Error(`migration ${file} went away while waiting for the service`);
    const service = record.service;
    if (record.revision !== revision) {
      throw new Error(
        `migration ${file} moved on to revision ${record.revision} (${record.phase}) while waiting; see keyspread migrate status`,
      );
    }
    if (service?.revision === revision && service.applied) return record;
    if (service?.revision === revision && service.error !== undefined) {
      throw new Error(
        `the service (pid ${service.pid}) cannot apply ${record.phase} yet: ${service.error}. It tries again every few seconds; fix the cause, or roll back with keyspread migrate advance --migration ${file} --from ${record.phase} --to ${record.history.at(-1)?.from}`,
      );
    }
    if (service !== undefined && serviceGone(service)) {
      throw new Error(
        `recorded ${record.phase} (revision ${revision}), but the service that followed ${file} (pid ${service.pid}) is not running; ` +
          "it applies the phase when it starts. Do not go on with the runbook until it has (keyspread migrate status)",
      );
    }
    if (Date.now() > deadline) {
      throw new Error(
        `recorded ${record.phase} (revision ${revision}), but no service applied it within ${seconds} s` +
          (service
            ? ` (last report from pid ${service.pid} on ${service.host} at ${service.updatedAt}, phase ${service.phase})`
            : " (no service has ever followed this file: is keyspread serve running with --migration naming it?)") +
          "; a service applies it when it starts. Do not go on with the runbook until it has (keyspread migrate status)",
      );
    }
    await sleep(POLL_MS);
  }
}

/**
 * Moves a live re-keying recorded in a file one phase (`migration-advance.ts` checks the step and
 * its guards), then waits until the service following the file reports it applied.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { LiveMigrationError } from "./live-migration-error.js";
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
    if (record === undefined) throw new LiveMigrationError({ code: "record-went-away", migration: file });
    const service = record.service;
    const { phase } = record;
    if (record.revision !== revision) {
      throw new LiveMigrationError({
        code: "moved-on",
        migration: file,
        phase,
        revision: record.revision,
      });
    }
    if (service?.revision === revision && service.applied) return record;
    if (service?.revision === revision && service.error !== undefined) {
      const rollbackTo = record.history.at(-1)?.from;
      throw new LiveMigrationError({
        code: "cannot-apply",
        migration: file,
        phase,
        pid: service.pid,
        error: service.error,
        ...(rollbackTo === undefined ? {} : { rollbackTo }),
      });
    }
    if (service !== undefined && serviceGone(service)) {
      throw new LiveMigrationError({
        code: "service-gone",
        migration: file,
        phase,
        revision,
        pid: service.pid,
      });
    }
    if (Date.now() > deadline) {
      throw new LiveMigrationError({
        code: "not-applied",
        migration: file,
        phase,
        revision,
        seconds,
        ...(service
          ? {
              lastReport: {
                pid: service.pid,
                host: service.host,
                updatedAt: service.updatedAt,
                phase: service.phase,
              },
            }
          : {}),
      });
    }
    await sleep(POLL_MS);
  }
}

/**
 * Changing a migration record's phase: `keyspread migrate advance --from A --to B`, a
 * check-and-set (the record must be in A) taken under the record's lock, one step at a time, with
 * the guards an unlucky operator needs:
 * - forward only once the service applied the current phase, and while it runs (a typo in the
 *   file name, a service that is down or could not open the new table: nothing would follow);
 * - reads move to the new table only after a validation of the current dual-write period found
 *   zero differences;
 * - reads move back to the old table after writes had left it only once a validation (after the
 *   reverse backfill) proves the old table whole again.
 * `force` skips the guards, never the check-and-set. Advancing to the phase the record is already
 * in, by the same step, is a no-op (a retried command), not an error.
 */
import { type AdvanceRefusal, LiveMigrationError, type ValidationState } from "./live-migration-error.js";
import { checkStep, type MigrationPhase } from "./migration-phases.js";
import type { MigrationRecord, ServiceStatus } from "./migration-record.js";

/** A live replica of the table (from the replica registry) and its report on a table-held record. */
export interface FollowingReplica {
  replica: string;
  host: string;
  pid: number;
  report?: ServiceStatus;
}

/** The live replicas that have not applied the record's revision (each must, before the next step). */
export function replicasBehind(
  record: MigrationRecord,
  live: readonly FollowingReplica[],
): FollowingReplica[] {
  return live.filter(
    ({ report }) => report === undefined || report.revision !== record.revision || !report.applied,
  );
}

/**
 * The dual-write period of a table-held record: the revision of the step that started writing both
 * tables (a validation belongs to it; after a rollback to single and back, a new one is needed).
 */
export function dualWritePeriod(record: MigrationRecord): number | undefined {
  const both = (phase: MigrationPhase) => phase === "dual-write" || phase === "reads-on-new";
  if (!both(record.phase)) return undefined;
  return record.history.findLast((step) => both(step.to) && !both(step.from))?.revision;
}

export interface MigrationAdvanceResult {
  record: MigrationRecord;
  /** The record was already in `to`, reached by this very step. */
  already: boolean;
}

export function advanceMigration(
  record: MigrationRecord | undefined,
  from: MigrationPhase,
  to: MigrationPhase,
  options: {
    force?: boolean;
    now?: Date;
    file: string;
    /** Whether the service that last reported is still running (false: known to be gone). */
    serviceRunning?: (service: NonNullable<MigrationRecord["service"]>) => boolean;
    /** A table-held record: the live replicas of the table, each of which must have applied the phase. */
    replicas?: readonly FollowingReplica[];
  },
): MigrationAdvanceResult {
  const { file } = options;
  if (record === undefined) throw new LiveMigrationError({ code: "no-record", migration: file, begin: true });
  const step = checkStep(from, to);
  const last = record.history.at(-1);
  if (record.phase === to && last?.from === from && last.to === to) return { record, already: true };
  if (record.phase !== from) {
    throw new LiveMigrationError({
      code: "wrong-phase",
      migration: file,
      phase: record.phase,
      expected: from,
      revision: record.revision,
      ...(last ? { setAt: last.at } : {}),
    });
  }
  if (!options.force) {
    const refusal =
      options.replicas !== undefined
        ? replicasRefusal(record, step, to, options.replicas)
        : step === "forward"
          ? forwardRefusal(record, to, options.serviceRunning)
          : rollbackRefusal(record, to);
    if (refusal) throw new LiveMigrationError({ code: "refused", from, to, refusal });
  }
  const revision = record.revision + 1;
  const at = (options.now ?? new Date()).toISOString();
  record.history.push({ revision, from, to, at, ...(options.force ? { forced: true } : {}) });
  return { record: { ...record, phase: to, revision }, already: false };
}

function forwardRefusal(
  record: MigrationRecord,
  to: MigrationPhase,
  running: ((service: NonNullable<MigrationRecord["service"]>) => boolean) | undefined,
): AdvanceRefusal | undefined {
  const service = record.service;
  if (service === undefined) return { reason: "no-service" };
  if (running?.(service) === false) {
    return { reason: "service-not-running", pid: service.pid, host: service.host };
  }
  if (service.revision !== record.revision || !service.applied) {
    return {
      reason: "service-not-applied",
      pid: service.pid,
      phase: record.phase,
      ...(service.error ? { error: service.error } : {}),
    };
  }
  if (to === "reads-on-new" && !provenWhole(record)) {
    return { reason: "not-validated", validation: validationState(record) };
  }
  return undefined;
}

function replicasRefusal(
  record: MigrationRecord,
  step: "forward" | "rollback",
  to: MigrationPhase,
  replicas: readonly FollowingReplica[],
): AdvanceRefusal | undefined {
  if (step === "rollback") {
    const oldMisses = replicas.some(({ report }) => report?.oldMissesFrom !== undefined);
    if (to === "dual-write" && oldMisses && !provenWholeIn(record, dualWritePeriod(record)))
      return {
        reason: "old-table-incomplete",
        validation: validationState(record, dualWritePeriod(record)),
      };
    return undefined;
  }
  if (replicas.length === 0) return { reason: "no-replica" };
  const behind = replicasBehind(record, replicas);
  if (behind.length > 0) {
    const { phase, revision } = record;
    return { reason: "replicas-behind", phase, revision, live: replicas.length, behind };
  }
  const period = dualWritePeriod(record);
  if (to === "reads-on-new" && !provenWholeIn(record, period)) {
    return { reason: "not-validated", validation: validationState(record, period) };
  }
  return undefined;
}

function rollbackRefusal(record: MigrationRecord, to: MigrationPhase): AdvanceRefusal | undefined {
  const oldMissesFrom = record.service?.oldMissesFrom;
  if (to === "dual-write" && oldMissesFrom !== undefined && !provenWhole(record)) {
    return { reason: "old-table-incomplete", oldMissesFrom, validation: validationState(record) };
  }
  return undefined;
}

/** A validation of the current dual-write period found no difference. */
function provenWhole(record: MigrationRecord): boolean {
  return provenWholeIn(record, record.service?.dualWriteFrom);
}

/** A validation of the dual-write period `period` found no difference. */
function provenWholeIn(record: MigrationRecord, period: number | undefined): boolean {
  const { validation } = record;
  return (
    validation?.state === "complete" &&
    validation.differences === 0 &&
    period !== undefined &&
    validation.dualWriteFrom === period
  );
}

function validationState(record: MigrationRecord, period = record.service?.dualWriteFrom): ValidationState {
  const { validation } = record;
  if (validation === undefined) return { kind: "none" };
  if (validation.state !== "complete") return { kind: "unfinished", state: validation.state };
  if (validation.dualWriteFrom !== period) return { kind: "earlier-period" };
  return { kind: "differences", differences: validation.differences };
}

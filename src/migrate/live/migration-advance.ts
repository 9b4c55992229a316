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

/** Names each replica that has not applied the record's phase, and why (for errors). */
export function describeBehind(record: MigrationRecord, behind: readonly FollowingReplica[]): string {
  return behind
    .map(({ replica, host, pid, report }) => {
      const state =
        report === undefined
          ? "no report (is it started with --migration naming this record?)"
          : report.revision !== record.revision
            ? `at revision ${report.revision} (${report.phase})`
            : `applying ${record.phase}${report.error ? `: ${report.error}` : ""}`;
      return `replica ${replica} (host ${host}, process ${pid}): ${state}`;
    })
    .join("; ");
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
  if (record === undefined) {
    throw new Error(
      `no migration record ${file}: start one with keyspread migrate begin --migration ${file} …`,
    );
  }
  const step = checkStep(from, to);
  const last = record.history.at(-1);
  if (record.phase === to && last?.from === from && last.to === to) return { record, already: true };
  if (record.phase !== from) {
    throw new Error(
      `migration ${file} is in phase ${record.phase}, not ${from} (revision ${record.revision}${last ? `, set ${last.at}` : ""}); nothing changed`,
    );
  }
  if (!options.force) {
    const refusal =
      options.replicas !== undefined
        ? replicasRefusal(record, step, to, options.replicas)
        : step === "forward"
          ? forwardRefusal(record, to, options.serviceRunning)
          : rollbackRefusal(record, to);
    if (refusal) throw new Error(`${from} → ${to} refused: ${refusal} (--force to move anyway)`);
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
): string | undefined {
  const service = record.service;
  if (service === undefined) {
    return "no service follows this record yet (start keyspread serve with --migration naming this file)";
  }
  if (running?.(service) === false) {
    return `the service that follows this record (pid ${service.pid} on ${service.host}) is not running: start it, then advance`;
  }
  if (service.revision !== record.revision || !service.applied) {
    return `the service (pid ${service.pid}) has not applied ${record.phase} yet${service.error ? `: ${service.error}` : ""}`;
  }
  if (to === "reads-on-new" && !provenWhole(record)) {
    return `reads move to the new table only after keyspread migrate validate found 0 differences in this dual-write period (${validationState(record)})`;
  }
  return undefined;
}

function replicasRefusal(
  record: MigrationRecord,
  step: "forward" | "rollback",
  to: MigrationPhase,
  replicas: readonly FollowingReplica[],
): string | undefined {
  if (step === "rollback") {
    const oldMisses = replicas.some(({ report }) => report?.oldMissesFrom !== undefined);
    if (to === "dual-write" && oldMisses && !provenWholeIn(record, dualWritePeriod(record)))
      return `writes left the old table, so it lacks rows; copy them back (keyspread migrate backfill --reverse) and validate with 0 differences first (${validationState(record, dualWritePeriod(record))})`;
    return undefined;
  }
  if (replicas.length === 0) {
    return "no live replica writes this table (start keyspread serve with --migration naming this record)";
  }
  const behind = replicasBehind(record, replicas);
  if (behind.length > 0) {
    return `${behind.length} of ${replicas.length} live replica(s) have not applied ${record.phase} (revision ${record.revision}): ${describeBehind(record, behind)}`;
  }
  const period = dualWritePeriod(record);
  if (to === "reads-on-new" && !provenWholeIn(record, period)) {
    return `reads move to the new table only after keyspread migrate validate found 0 differences in this dual-write period (${validationState(record, period)})`;
  }
  return undefined;
}

function rollbackRefusal(record: MigrationRecord, to: MigrationPhase): string | undefined {
  if (to === "dual-write" && record.service?.oldMissesFrom !== undefined && !provenWhole(record)) {
    return (
      `writes left the old table at segment ${record.service.oldMissesFrom}, so it lacks rows; copy them back ` +
      `(the reverse backfill in keyspread migrate plan) and validate with 0 differences first (${validationState(record)})`
    );
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

function validationState(record: MigrationRecord, period = record.service?.dualWriteFrom): string {
  const { validation } = record;
  if (validation === undefined) return "no validation yet";
  if (validation.state !== "complete") return `the last validation is ${validation.state}`;
  if (validation.dualWriteFrom !== period)
    return "the last validation belongs to an earlier dual-write period";
  return `the last validation found ${validation.differences} difference(s)`;
}

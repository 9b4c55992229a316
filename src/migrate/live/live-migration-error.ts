/**
 * Why a step of a live re-keying did not happen, as data: each problem is a record with a `code`
 * and the fields it was decided on (scripts and tests read these); its message is rendered from the
 * record by `describeProblem`, the one place the sentences live.
 */
import type { FollowingReplica } from "./migration-advance.js";
import { MIGRATION_PHASES, type MigrationPhase } from "./migration-phases.js";

/** Where the last validation stands, as an advance guard sees it. */
export type ValidationState =
  | { kind: "none" }
  | { kind: "unfinished"; state: string }
  | { kind: "earlier-period" }
  | { kind: "differences"; differences: number | undefined };

/** Why an advance guard refused a step (`--force` skips every one of them). */
export type AdvanceRefusal =
  | { reason: "no-service" }
  | { reason: "service-not-running"; pid: number; host: string }
  | { reason: "service-not-applied"; pid: number; phase: MigrationPhase; error?: string }
  | { reason: "not-validated"; validation: ValidationState }
  | { reason: "old-table-incomplete"; oldMissesFrom?: number; validation: ValidationState }
  | { reason: "no-replica" }
  | {
      reason: "replicas-behind";
      phase: MigrationPhase;
      revision: number;
      live: number;
      behind: readonly FollowingReplica[];
    };

/** The phase and revision a replica is compared against. */
type Applying = { phase: MigrationPhase; revision: number };

export type LiveMigrationProblem =
  | { code: "same-phase"; phase: MigrationPhase }
  | { code: "not-one-step"; from: MigrationPhase; to: MigrationPhase; skipped: readonly MigrationPhase[] }
  | { code: "no-record"; migration: string; begin?: boolean }
  | { code: "no-table-record"; migration: string }
  | { code: "record-went-away"; migration: string }
  | {
      code: "wrong-phase";
      migration: string;
      phase: MigrationPhase;
      expected: MigrationPhase;
      revision: number;
      setAt?: string;
    }
  | { code: "refused"; from: MigrationPhase; to: MigrationPhase; refusal: AdvanceRefusal }
  | { code: "moved-on"; migration: string; phase: MigrationPhase; revision: number }
  | {
      code: "cannot-apply";
      migration: string;
      phase: MigrationPhase;
      pid: number;
      error: string;
      rollbackTo?: MigrationPhase;
    }
  | { code: "service-gone"; migration: string; phase: MigrationPhase; revision: number; pid: number }
  | {
      code: "not-applied";
      migration: string;
      phase: MigrationPhase;
      revision: number;
      seconds: number;
      lastReport?: { pid: number; host: string; updatedAt: string; phase: MigrationPhase };
    }
  | {
      code: "replicas-not-applied";
      phase: MigrationPhase;
      revision: number;
      seconds: number;
      live: number;
      behind: readonly FollowingReplica[];
    }
  | {
      code: "not-dual-writing";
      migration: string;
      job: "backfill" | "validation";
      phase: MigrationPhase;
      revision: number;
      /** A file-held record: whether its service applied the phase. */
      applied?: boolean;
      /** A table-held record: the live replicas, and those that have not applied the phase. */
      live?: number;
      behind?: readonly FollowingReplica[];
    }
  | {
      code: "different-migration";
      migration: string;
      old: string;
      new: string;
      phase: MigrationPhase;
    }
  | { code: "record-not-in-old-table"; migration: string; from: string }
  | { code: "serves-another-table"; migration: string; old: string; new: string; serves: string }
  | { code: "changes-more-than-salt"; oldFingerprint: string; newFingerprint: string }
  | { code: "salt-splits-device"; salted: readonly string[] };

export type LiveMigrationErrorCode = LiveMigrationProblem["code"];

export class LiveMigrationError extends Error {
  readonly code: LiveMigrationErrorCode;

  constructor(readonly problem: LiveMigrationProblem) {
    super(describeProblem(problem));
    this.name = "LiveMigrationError";
    this.code = problem.code;
  }
}

/** The problem as the sentence an operator reads. */
export function describeProblem(problem: LiveMigrationProblem): string {
  switch (problem.code) {
    case "same-phase":
      return `--from and --to are both ${problem.phase}`;
    case "not-one-step": {
      const back = MIGRATION_PHASES.indexOf(problem.to) < MIGRATION_PHASES.indexOf(problem.from);
      return `${problem.from} → ${problem.to} skips ${back ? "back over " : ""}${problem.skipped.join(", ")}: move one phase at a time (${MIGRATION_PHASES.join(" → ")})`;
    }
    case "no-record":
      return problem.begin
        ? `no migration record ${problem.migration}: start one with keyspread migrate begin --migration ${problem.migration} …`
        : `no migration record ${problem.migration}`;
    case "no-table-record":
      return `no migration record in ${problem.migration}: keyspread migrate begin`;
    case "record-went-away":
      return `migration ${problem.migration} went away while waiting for the service`;
    case "wrong-phase":
      return `migration ${problem.migration} is in phase ${problem.phase}, not ${problem.expected} (revision ${problem.revision}${problem.setAt === undefined ? "" : `, set ${problem.setAt}`}); nothing changed`;
    case "refused":
      return `${problem.from} → ${problem.to} refused: ${describeRefusal(problem.refusal)} (--force to move anyway)`;
    case "moved-on":
      return `migration ${problem.migration} moved on to revision ${problem.revision} (${problem.phase}) while waiting; see keyspread migrate status`;
    case "cannot-apply":
      return `the service (pid ${problem.pid}) cannot apply ${problem.phase} yet: ${problem.error}. It tries again every few seconds; fix the cause, or roll back with keyspread migrate advance --migration ${problem.migration} --from ${problem.phase} --to ${problem.rollbackTo}`;
    case "service-gone":
      return (
        `recorded ${problem.phase} (revision ${problem.revision}), but the service that followed ${problem.migration} (pid ${problem.pid}) is not running; ` +
        "it applies the phase when it starts. Do not go on with the runbook until it has (keyspread migrate status)"
      );
    case "not-applied": {
      const last = problem.lastReport;
      return (
        `recorded ${problem.phase} (revision ${problem.revision}), but no service applied it within ${problem.seconds} s` +
        (last
          ? ` (last report from pid ${last.pid} on ${last.host} at ${last.updatedAt}, phase ${last.phase})`
          : " (no service has ever followed this file: is keyspread serve running with --migration naming it?)") +
        "; a service applies it when it starts. Do not go on with the runbook until it has (keyspread migrate status)"
      );
    }
    case "replicas-not-applied":
      return `recorded ${problem.phase} (revision ${problem.revision}), but ${
        problem.live === 0
          ? "no live replica writes the table (is keyspread serve running with --migration naming it?)"
          : `${problem.behind.length} of ${problem.live} live replica(s) have not applied it within ${problem.seconds} s: ${describeBehind(problem, problem.behind)}`
      }. A replica applies it when it starts; do not go on with the runbook until every one has (keyspread migrate status)`;
    case "not-dual-writing": {
      const what = problem.job === "backfill" ? "a backfill" : "a live validation";
      if (problem.live === undefined) {
        return `${what} runs while the service writes both tables (dual-write or reads-on-new, applied); migration ${problem.migration} is in ${problem.phase}${problem.applied ? "" : " (not applied by the service yet)"}`;
      }
      const behind = problem.behind ?? [];
      return (
        `${what} runs while every live replica writes both tables (dual-write or reads-on-new, applied); migration ${problem.migration} is in ${problem.phase}` +
        (problem.live === 0
          ? " (no live replica)"
          : behind.length > 0
            ? ` (${describeBehind(problem, behind)})`
            : "")
      );
    }
    case "different-migration":
      return `migration ${problem.migration} already moves ${problem.old} → ${problem.new} (phase ${problem.phase}); finish it, or use another --migration file`;
    case "changes-more-than-salt":
      return `the new table's schema ${problem.newFingerprint} must be the service's row key (${problem.oldFingerprint}) with another salt, same interval: keyspread serve schema --buckets N --interval DURATION`;
    case "salt-splits-device":
      return `the new table salts over ${problem.salted.join(", ")}; a device's rows must stay in one bucket (salt over tenant and deviceId)`;
    case "serves-another-table":
      return (
        `migration ${problem.migration} moves ${problem.old} → ${problem.new}, but this service serves ${problem.serves}; ` +
        "give this service its own --migration file"
      );
    case "record-not-in-old-table":
      return `--migration ${problem.migration}: a record held in a table lives in the table the replicas write, --from ${problem.from}`;
  }
}

function describeRefusal(refusal: AdvanceRefusal): string {
  switch (refusal.reason) {
    case "no-service":
      return "no service follows this record yet (start keyspread serve with --migration naming this file)";
    case "service-not-running":
      return `the service that follows this record (pid ${refusal.pid} on ${refusal.host}) is not running: start it, then advance`;
    case "service-not-applied":
      return `the service (pid ${refusal.pid}) has not applied ${refusal.phase} yet${refusal.error ? `: ${refusal.error}` : ""}`;
    case "not-validated":
      return `reads move to the new table only after keyspread migrate validate found 0 differences in this dual-write period (${describeValidation(refusal.validation)})`;
    case "old-table-incomplete":
      return refusal.oldMissesFrom === undefined
        ? `writes left the old table, so it lacks rows; copy them back (keyspread migrate backfill --reverse) and validate with 0 differences first (${describeValidation(refusal.validation)})`
        : `writes left the old table at segment ${refusal.oldMissesFrom}, so it lacks rows; copy them back ` +
            `(the reverse backfill in keyspread migrate plan) and validate with 0 differences first (${describeValidation(refusal.validation)})`;
    case "no-replica":
      return "no live replica writes this table (start keyspread serve with --migration naming this record)";
    case "replicas-behind":
      return `${refusal.behind.length} of ${refusal.live} live replica(s) have not applied ${refusal.phase} (revision ${refusal.revision}): ${describeBehind(refusal, refusal.behind)}`;
  }
}

function describeValidation(validation: ValidationState): string {
  switch (validation.kind) {
    case "none":
      return "no validation yet";
    case "unfinished":
      return `the last validation is ${validation.state}`;
    case "earlier-period":
      return "the last validation belongs to an earlier dual-write period";
    case "differences":
      return `the last validation found ${validation.differences} difference(s)`;
  }
}

/** Names each replica that has not applied the phase, and why. */
export function describeBehind(applying: Applying, behind: readonly FollowingReplica[]): string {
  return behind
    .map(({ replica, host, pid, report }) => {
      const state =
        report === undefined
          ? "no report (is it started with --migration naming this record?)"
          : report.revision !== applying.revision
            ? `at revision ${report.revision} (${report.phase})`
            : `applying ${applying.phase}${report.error ? `: ${report.error}` : ""}`;
      return `replica ${replica} (host ${host}, process ${pid}): ${state}`;
    })
    .join("; ");
}

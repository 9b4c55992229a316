/**
 * Every event the service logs (one JSON line each, on stderr from `keyspread serve`), with its
 * fields in the order they are written: `{"event":"<name>", …fields}`. docs/serve.md lists them
 * with when each is logged. Alert transitions are logged apart (`hotspot-monitor.ts`).
 */
import type { MigrationPhase } from "../../migrate/live/migration-phases.js";

export interface ServiceEvents {
  /** Started without `--auth`. */
  "no-auth": { message: string };
  /** The API key file was read again after it changed. */
  "auth-reload": { keys: number };
  "auth-reload-error": { error: string };
  /** A request failed with a 500. */
  error: { path: string; error: string };
  /** A flush could not start or finish (it is tried again). */
  "flush-error": { error: string };
  /** A damaged record skipped while replaying a log segment. */
  "wal-corrupt": { segment: number; offset: number; bytes: number };
  /** A log segment left by a previous run was read back. */
  "wal-replay": {
    segment: number;
    points: number;
    tornBytes: number;
    corruptRanges: number;
    deadLetters: number;
    duplicates: number;
    /** Requests skipped because another replica took their Idempotency-Key over (it stored them). */
    takenOver: number;
  };
  "idempotency-expiry-error": { error: string };
  /** This replica claimed its id in the table's replica registry (`live`: replicas counted, itself included). */
  "replica-joined": { replica: string; live: number };
  "replica-heartbeat-error": { error: string };
  "replica-leave-error": { error: string };
  /** Another process took this replica's lease over: this one stops taking writes. */
  "replica-lease-lost": { replica: string; holder: string };
  /** SIGTERM or close: readiness answers 503 from now, requests are still served for `delayMs`. */
  "drain-start": { delayMs: number; deadlineMs: number };
  /** The service stopped accepting and answered every request it had read. */
  "drain-stopped-accepting": { inFlight: number };
  /** A row went to the dead-letter file. */
  "dead-letter": { segment: number; table: string; points: number; reason: string };
  /** A segment's rows are stored but its completion (dead letters, keys, unlink) failed; tried again. */
  "segment-complete-retry": { segment: number; error: string };
  /** Rows the store still refused at close stay in their segment for the next start. */
  "left-in-log": { segment: number; rows: number };
  /** Rows the store refused, about to be tried again. */
  "store-write-retry": { segment: number; failedRows: number; table: string; reason: string };
  /** A migration phase stopped writing a table: its rows still waiting are dropped. */
  "table-no-longer-written": { segment: number; table: string; rows: number };
  /** The retention sweep deleted rows older than the cutoff. */
  retention: { deleted: number; cutoffMs: number };
  "retention-error": { error: string };
  /** The migration record could not be followed (`phase`: the phase it asks for). */
  "migration-error": { phase?: MigrationPhase; error: string };
  "migration-unreadable": { error: string };
  /** The migration record's file went away. */
  "migration-missing": { file: string; message: string };
  /** The service moved to another migration phase. */
  "migration-phase": { from: MigrationPhase; to: MigrationPhase; revision: number };
  "migration-publish-error": { error: string };
  /** The backfill started (`running`) or finished (`complete`). */
  "migration-backfill":
    | { state: "running"; run: number; reverse: boolean }
    | { state: "complete"; rowsRead: number };
  "migration-backfill-error": { error: string };
  /** A validation finished. */
  "migration-validation": { id: string; differences: number; cut: number };
  "migration-validation-error": { error: string };
}

export type ServiceEventName = keyof ServiceEvents;

/** Logs one event as a JSON line, `event` first. */
export function logEvent<Name extends ServiceEventName>(
  log: (line: string) => void,
  event: Name,
  fields: ServiceEvents[Name],
): void {
  log(JSON.stringify({ event, ...fields }));
}

/**
 * The phases of a live re-keying (the fleet incident: "dual-write … validate … cut reads over, then writes,
 * then delete the old table"), what each one writes and reads, and which moves between them are
 * allowed: one step forward, or one step back (a rollback). Skipping a step is refused: each
 * phase's guarantee rests on the one before it.
 */
import type { MigrationSide } from "../dual-write.js";
import { LiveMigrationError } from "./live-migration-error.js";

export const MIGRATION_PHASES = ["single", "dual-write", "reads-on-new", "writes-on-new", "done"] as const;
export type MigrationPhase = (typeof MIGRATION_PHASES)[number];

const WRITES: Record<MigrationPhase, readonly MigrationSide[]> = {
  single: ["old"],
  "dual-write": ["old", "new"],
  "reads-on-new": ["old", "new"],
  "writes-on-new": ["new"],
  done: ["new"],
};

/** The tables every flushed row must reach before its log segment may go. */
export function phaseWriteSides(phase: MigrationPhase): readonly MigrationSide[] {
  return WRITES[phase];
}

/** The table device reads come from. */
export function phaseReadSide(phase: MigrationPhase): MigrationSide {
  return MIGRATION_PHASES.indexOf(phase) >= MIGRATION_PHASES.indexOf("reads-on-new") ? "new" : "old";
}

/** Whether the phase writes both tables (the window in which backfill and validate run). */
export function writesBoth(phase: MigrationPhase): boolean {
  return WRITES[phase].length === 2;
}

/** Whether the phase writes or reads the old table: only then must it be open (from writes-on-new on it may be gone). */
export function usesOld(phase: MigrationPhase): boolean {
  return phaseWriteSides(phase).includes("old") || phaseReadSide(phase) === "old";
}

export function parsePhase(text: string): MigrationPhase {
  if ((MIGRATION_PHASES as readonly string[]).includes(text)) return text as MigrationPhase;
  throw new Error(`phase ${JSON.stringify(text)} is not one of ${MIGRATION_PHASES.join(", ")}`);
}

/** Throws unless `to` is one step after or before `from`. */
export function checkStep(from: MigrationPhase, to: MigrationPhase): "forward" | "rollback" {
  const distance = MIGRATION_PHASES.indexOf(to) - MIGRATION_PHASES.indexOf(from);
  if (distance === 1) return "forward";
  if (distance === -1) return "rollback";
  if (distance === 0) throw new LiveMigrationError({ code: "same-phase", phase: from });
  const path = MIGRATION_PHASES.slice(
    Math.min(MIGRATION_PHASES.indexOf(from), MIGRATION_PHASES.indexOf(to)),
    Math.max(MIGRATION_PHASES.indexOf(from), MIGRATION_PHASES.indexOf(to)) + 1,
  );
  throw new LiveMigrationError({ code: "not-one-step", from, to, skipped: path.slice(1, -1) });
}

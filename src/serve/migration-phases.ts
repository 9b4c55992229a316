/**
 * The phases of a live re-keying (seed 003: "dual-write … validate … cut reads over, then writes,
 * then delete the old table"), what each one writes and reads, and which moves between them are
 * allowed: one step forward, or one step back (a rollback). Skipping a step is refused: each
 * phase's guarantee rests on the one before it.
 */
import type { MigrationSide } from "../migrate/dual-write.js";

export const PHASES = ["single", "dual-write", "reads-on-new", "writes-on-new", "done"] as const;
export type Phase = (typeof PHASES)[number];

const WRITES: Record<Phase, readonly MigrationSide[]> = {
  single: ["old"],
  "dual-write": ["old", "new"],
  "reads-on-new": ["old", "new"],
  "writes-on-new": ["new"],
  done: ["new"],
};

/** The tables every flushed row must reach before its log segment may go. */
export function writesOf(phase: Phase): readonly MigrationSide[] {
  return WRITES[phase];
}

/** The table device reads come from. */
export function readsOf(phase: Phase): MigrationSide {
  return PHASES.indexOf(phase) >= PHASES.indexOf("reads-on-new") ? "new" : "old";
}

/** Whether the phase writes both tables (the window in which backfill and validate run). */
export function writesBoth(phase: Phase): boolean {
  return WRITES[phase].length === 2;
}

/** Whether the phase writes or reads the old table: only then must it be open (from writes-on-new on it may be gone). */
export function usesOld(phase: Phase): boolean {
  return writesOf(phase).includes("old") || readsOf(phase) === "old";
}

export function parsePhase(text: string): Phase {
  if ((PHASES as readonly string[]).includes(text)) return text as Phase;
  throw new Error(`phase ${JSON.stringify(text)} is not one of ${PHASES.join(", ")}`);
}

/** Throws unless `to` is one step after or before `from`. */
export function checkStep(from: Phase, to: Phase): "forward" | "rollback" {
  const distance = PHASES.indexOf(to) - PHASES.indexOf(from);
  if (distance === 1) return "forward";
  if (distance === -1) return "rollback";
  if (distance === 0) throw new Error(`--from and --to are both ${from}`);
  const path = PHASES.slice(
    Math.min(PHASES.indexOf(from), PHASES.indexOf(to)),
    Math.max(PHASES.indexOf(from), PHASES.indexOf(to)) + 1,
  );
  throw new Error(
    `${from} → ${to} skips ${distance > 0 ? "" : "back over "}${path.slice(1, -1).join(", ")}: move one phase at a time (${PHASES.join(" → ")})`,
  );
}

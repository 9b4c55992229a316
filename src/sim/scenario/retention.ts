/**
 * How long rows stay, as storage is sized: the scenario's retention (the column family's GC
 * max-age), else the longest window a declared read needs — a scan over 30 days implies at least
 * 30 days kept. With neither, nothing says (storage is then what a run wrote).
 */
import type { Scenario } from "./scenario.js";

/** Where the retention the storage is sized for comes from. */
export type Retention =
  | { seconds: number; source: "scenario" }
  /** No retention set: the longest window a declared read needs (`read` names it). */
  | { seconds: number; source: "reads"; read: string };

/** The scenario's retention, else the longest read window; undefined when neither says how long rows stay. */
export function impliedRetention(scenario: Scenario): Retention | undefined {
  const retention = scenario.workload.retention;
  if (retention !== undefined) return { seconds: retention, source: "scenario" };
  const windowed = scenario.workload.reads.flatMap((read) =>
    read.kind === "latest" ? [] : [{ name: read.name, window: read.window }],
  );
  const longest = windowed.sort((a, b) => b.window - a.window)[0];
  return longest ? { seconds: longest.window, source: "reads", read: longest.name } : undefined;
}

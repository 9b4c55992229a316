/**
 * Which table a design runs on. The table that exists holds the current key: a design that keeps
 * the key — more nodes, batching, another storage — runs on it, already split by its load and
 * balanced; only a key change writes a new table (a re-key), or a design that says `table: new`.
 * `simulate`, `lab` and `advise` all decide it here.
 */
import { compileSchema } from "../../keys/index.js";
import type { ScenarioDesign } from "./scenario.js";

export type TableKind = "new" | "existing";

/** The table `design` runs on when `current` is the key in production: the design's own `table`, else by its key. */
export function tableFor(design: ScenarioDesign, current: ScenarioDesign): TableKind {
  return design.table ?? (keepsKey(design, current) ? "existing" : "new");
}

/** Whether two designs write the same keys: the same key schema up to its name (its fingerprint). */
function keepsKey(design: ScenarioDesign, current: ScenarioDesign): boolean {
  if (design.schema === current.schema) return true;
  try {
    return compileSchema(design.schema).fingerprint === compileSchema(current.schema).fingerprint;
  } catch {
    // A schema that does not compile is reported by the run that compiles it, with the design's name.
    return false;
  }
}

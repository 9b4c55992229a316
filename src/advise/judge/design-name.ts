/**
 * One name per key design, shared by the advisor, the lab and simulate: `as-is`, `reverse-ts`,
 * `promote-shard`, `salt-64-by-deviceID`, `salt-16-by-deviceID+ts`, `batch-2s`, and changes joined
 * by `+` (`salt-24-by-deviceID+batch-2s`). A name says what changed against the current key, so two
 * tools never give one name to different designs.
 */

/** One change to the current key (or to how rows are written). */
export type KeyChange =
  | { kind: "reverse-timestamp"; field: string }
  | { kind: "promote"; field: string }
  | { kind: "salt"; buckets: number; fields: string[] }
  | { kind: "batch"; intervalS: number };

function changeName(change: KeyChange): string {
  switch (change.kind) {
    case "reverse-timestamp":
      return `reverse-${change.field}`;
    case "promote":
      return `promote-${change.field}`;
    case "salt":
      return `salt-${change.buckets}-by-${change.fields.join("+")}`;
    case "batch":
      return `batch-${change.intervalS}s`;
  }
}

/** The design's name: `as-is` for no change, else its changes' names joined by `+`. */
export function designName(changes: readonly KeyChange[]): string {
  return changes.length === 0 ? "as-is" : changes.map(changeName).join("+");
}

/**
 * One name per key design, shared by the advisor, the lab and simulate: `as-is`, `reverse-ts`
 * (a reversed timestamp, or a reversed sequence: `reverse-orderId`),
 * `promote-shard`, `salt-64-by-deviceID`, `salt-16-by-deviceID+ts`, `batch-2s`, `write-shards-4`, and changes joined
 * by `+` (`salt-24-by-deviceID+batch-2s`). A name says what changed against the current key, so two
 * tools never give one name to different designs.
 */

import type { FieldValues } from "../../keys/types.js";

/** One change to the current key (or to how rows are written). */
export type KeyChange =
  | { kind: "reverse-timestamp"; field: string }
  /** A global sequence stored digit- (or bit-) reversed: a `reversed-uint` codec. */
  | { kind: "reverse-sequence"; field: string }
  | { kind: "promote"; field: string }
  | { kind: "salt"; buckets: number; fields: string[] }
  | { kind: "batch"; intervalS: number }
  /** A hot row's writes spread over `count` rows (of these entities; absent: every row). */
  | { kind: "write-shards"; count: number; entities?: FieldValues[] };

function changeName(change: KeyChange): string {
  switch (change.kind) {
    case "reverse-timestamp":
    case "reverse-sequence":
      return `reverse-${change.field}`;
    case "promote":
      return `promote-${change.field}`;
    case "salt":
      return `salt-${change.buckets}-by-${change.fields.join("+")}`;
    case "batch":
      return `batch-${change.intervalS}s`;
    case "write-shards":
      return `write-shards-${change.count}`;
  }
}

/** The design's name: `as-is` for no change, else its changes' names joined by `+`. */
export function designName(changes: readonly KeyChange[]): string {
  return changes.length === 0 ? "as-is" : changes.map(changeName).join("+");
}

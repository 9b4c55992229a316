/**
 * What one node can do and what an operation costs it. Capacities are Google's published per-node
 * figures for 1 KB rows (see docs/simulator.md); cost is in node-seconds, so a node's CPU is the
 * sum of the costs it serves per second.
 */
import type { Storage } from "./scenario.js";

export interface NodeCapacity {
  writesPerS: number;
  readsPerS: number;
  scanBytesPerS: number;
}

export const NODE_CAPACITY: Readonly<Record<Storage, NodeCapacity>> = {
  ssd: { writesPerS: 14_000, readsPerS: 17_000, scanBytesPerS: 220e6 },
  hdd: { writesPerS: 10_000, readsPerS: 500, scanBytesPerS: 180e6 },
};

/** Share of a 1 KB operation's cost that does not depend on the row's size (the rest scales with bytes). */
export const FIXED_COST_SHARE = 0.5;
const REFERENCE_ROW_BYTES = 1024;

const sizeFactor = (rowBytes: number) =>
  FIXED_COST_SHARE + (1 - FIXED_COST_SHARE) * (rowBytes / REFERENCE_ROW_BYTES);

/** Node-seconds to write one row of `rowBytes`. */
export function writeCost(rowBytes: number, capacity: NodeCapacity): number {
  return sizeFactor(rowBytes) / capacity.writesPerS;
}

/** Node-seconds to read one range: a seek and first row like a point read, then the rest at scan speed. */
export function rangeReadCost(rows: number, rowBytes: number, capacity: NodeCapacity): number {
  return (
    sizeFactor(rowBytes) / capacity.readsPerS + (Math.max(0, rows - 1) * rowBytes) / capacity.scanBytesPerS
  );
}

/** Milliseconds an idle node spends streaming `rows` rows of a range (on top of the per-request service time). */
export function scanMs(rows: number, rowBytes: number, capacity: NodeCapacity): number {
  return ((Math.max(0, rows - 1) * rowBytes) / capacity.scanBytesPerS) * 1000;
}

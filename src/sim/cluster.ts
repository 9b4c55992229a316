/**
 * What one node can do and what an operation costs it. Capacities are Google's published per-node
 * figures for 1 KB rows (model-constants.ts); cost is in node-seconds, so a node's CPU is the sum
 * of the costs it serves per second.
 */

export interface NodeCapacity {
  writesPerS: number;
  readsPerS: number;
  scanBytesPerS: number;
}

/**
 * The capacity of a node and how an operation's cost grows with its row's bytes. `fixedCostShares`
 * holds one share (a run at one end of the model) or the range's two ends with `pick` choosing the
 * costlier or cheaper per row size: which end is pessimistic depends on whether rows are smaller or
 * larger than 1 KB.
 */
export interface CostModel {
  capacity: NodeCapacity;
  fixedCostShares: readonly number[];
  pick: (...shares: number[]) => number;
}

const REFERENCE_ROW_BYTES = 1024;

/** A row's cost relative to a 1 KB row's. */
export function sizeFactor(rowBytes: number, model: CostModel): number {
  return model.pick(
    ...model.fixedCostShares.map((share) => share + (1 - share) * (rowBytes / REFERENCE_ROW_BYTES)),
  );
}

/** Node-seconds to write one row of `rowBytes`. */
export function writeCost(rowBytes: number, model: CostModel): number {
  return sizeFactor(rowBytes, model) / model.capacity.writesPerS;
}

/** Node-seconds to read one range: a seek and first row like a point read, then the rest at scan speed. */
export function rangeReadCost(rows: number, rowBytes: number, model: CostModel): number {
  return (
    sizeFactor(rowBytes, model) / model.capacity.readsPerS +
    (Math.max(0, rows - 1) * rowBytes) / model.capacity.scanBytesPerS
  );
}

/** Milliseconds an idle node spends streaming `rows` rows of a range (on top of the per-request service time). */
export function scanMs(rows: number, rowBytes: number, capacity: NodeCapacity): number {
  return ((Math.max(0, rows - 1) * rowBytes) / capacity.scanBytesPerS) * 1000;
}

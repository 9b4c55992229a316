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

/** The capacity of a node, how a row's cost grows with its bytes, and what a read waits for on storage. */
export interface CostModel {
  capacity: NodeCapacity;
  /** Share of a 1 KB row's cost, written or read, that does not grow with its bytes. */
  fixedCostShare: number;
  /** The same for a row a scan streams past its first. */
  scanFixedCostShare: number;
  /** Milliseconds a range read waits for its storage before the first row (an HDD seek; 0 on SSD). */
  readSeekMs: number;
}

const REFERENCE_ROW_BYTES = 1024;

/**
 * A row's cost relative to a 1 KB row's, the row Google's per-node figures are for. Under 1 KB a
 * row still pays the fixed share, so per byte it costs more; over 1 KB it costs its bytes at the
 * 1 KB row's rate: no published figure lets a node move more bytes per second in bigger rows, so
 * no share, at either end of its range, makes a large row cheaper per byte than a 1 KB row.
 */
export function sizeFactor(rowBytes: number, fixedShare: number): number {
  const bytes = rowBytes / REFERENCE_ROW_BYTES;
  return Math.max(bytes, fixedShare + (1 - fixedShare) * bytes);
}

/** Node-seconds to write one row of `rowBytes`. */
export function writeCost(rowBytes: number, model: CostModel): number {
  return sizeFactor(rowBytes, model.fixedCostShare) / model.capacity.writesPerS;
}

/**
 * Node-seconds to stream one row past a range's first: a 1 KB row at the published scan rate
 * (220 MB/s is ~215,000 rows/s of 1 KB), a smaller row its fixed share of that plus its bytes.
 */
export function scannedRowCost(rowBytes: number, model: CostModel): number {
  return (
    (sizeFactor(rowBytes, model.scanFixedCostShare) * REFERENCE_ROW_BYTES) / model.capacity.scanBytesPerS
  );
}

/** Node-seconds to read one range: a seek and first row like a point read, then the rest scanned. */
export function rangeReadCost(rows: number, rowBytes: number, model: CostModel): number {
  return (
    sizeFactor(rowBytes, model.fixedCostShare) / model.capacity.readsPerS +
    Math.max(0, rows - 1) * scannedRowCost(rowBytes, model)
  );
}

/**
 * Milliseconds a range read of `rows` rows spends on an idle node beyond the per-request service
 * time: waiting for its storage, then streaming the rows after the first.
 */
export function readServiceMs(rows: number, rowBytes: number, model: CostModel): number {
  return model.readSeekMs + Math.max(0, rows - 1) * scannedRowCost(rowBytes, model) * 1000;
}

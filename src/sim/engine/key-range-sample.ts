/** A sample window's load per key range, for the key-space heatmap. */
import { keySuccessor } from "../../keys/bytes.js";
import type { KeyRangeLoad, LoadStep } from "../../load/key-load.js";
import { BYTES, QUANTITIES, RANGE_READS, ROWS, STORED, WRITES } from "../cluster/tablets.js";
import type { TabletLoad } from "./tablet-load.js";

/**
 * Key ranges per sampled step at most (Key Visualizer draws ~1,000 key buckets): beyond that,
 * neighbouring tablets are summed into one range, shown on the node of its busiest tablet, so a
 * long run of a table with thousands of tablets stays small.
 */
const MAX_RANGES = 1000;

/** The per-tablet load of the sample window `[t, t + durationS)`, at most MAX_RANGES key ranges; starts the next window. */
export function sampleKeyRanges(load: TabletLoad, nodeCpu: number[], t: number, durationS: number): LoadStep {
  load.syncAll();
  const { tablets } = load;
  const list = tablets.tablets;
  const { odometer, atSample } = tablets.columns;
  const perRange = Math.ceil(list.length / MAX_RANGES);
  const ranges: KeyRangeLoad[] = [];
  const sums = new Float64Array(QUANTITIES);
  // The table holds no rows outside the keys written: the edge tablets' load is drawn within them.
  const written = load.writtenKeys();
  for (let first = 0; first < list.length; first += perRange) {
    const last = Math.min(first + perRange, list.length) - 1;
    sums.fill(0);
    let storedBytes = 0;
    let busiest = list[first]!;
    let busiestOps = -1;
    for (let index = first; index <= last; index++) {
      const tablet = list[index]!;
      const row = tablet.slot * QUANTITIES;
      const ops =
        odometer[row + WRITES]! -
        atSample[row + WRITES]! +
        odometer[row + RANGE_READS]! -
        atSample[row + RANGE_READS]!;
      for (let q = 0; q < QUANTITIES; q++) {
        sums[q]! += odometer[row + q]! - atSample[row + q]!;
        atSample[row + q] = odometer[row + q]!;
      }
      if (ops > busiestOps) {
        busiest = tablet;
        busiestOps = ops;
      }
      storedBytes += odometer[row + STORED]!;
    }
    const { start, end } = withinWritten(list[first]!.start, tablets.end(last), written);
    ranges.push({
      start,
      end,
      readsPerS: sums[RANGE_READS]! / durationS,
      writesPerS: sums[WRITES]! / durationS,
      scannedRowsPerS: sums[ROWS]! / durationS,
      bytesPerS: sums[BYTES]! / durationS,
      // Lets the heatmap measure a band's width by data held, as Key Visualizer does.
      storedBytes,
      node: busiest.node,
      nodeCpu: nodeCpu[busiest.node]!,
    });
  }
  return { t, durationS, ranges };
}

/** A range narrowed to the keys written, when it reaches past them (the first and last tablets). */
function withinWritten(
  start: Buffer,
  end: Buffer | null,
  written: { min: Buffer; max: Buffer } | null,
): { start: Buffer; end: Buffer | null } {
  if (written === null) return { start, end };
  const after = keySuccessor(written.max);
  const narrowedStart =
    Buffer.compare(start, written.min) < 0 && (end === null || Buffer.compare(written.min, end) < 0)
      ? written.min
      : start;
  const narrowedEnd =
    (end === null || Buffer.compare(after, end) < 0) && Buffer.compare(narrowedStart, after) < 0
      ? after
      : end;
  return { start: narrowedStart, end: narrowedEnd };
}

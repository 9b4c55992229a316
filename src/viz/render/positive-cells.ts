/**
 * The positive cells of heatmap values, sorted, and order statistics over several such lists at
 * once. The colour scale's top is a percentile of every shown design's cells: with each matrix's
 * positives sorted once (remembered by its values array), a run that changes one design sorts that
 * design's cells only, where sorting all designs' cells together again took a second on the fleet.
 */

/** The values above 0, ascending (0, negatives and NaN are no load to colour). */
export function sortedPositives(values: ArrayLike<number>): Float64Array {
  let count = 0;
  for (let index = 0; index < values.length; index++) if (values[index]! > 0) count++;
  const positives = new Float64Array(count);
  let next = 0;
  for (let index = 0; index < values.length; index++) {
    const value = values[index]!;
    if (value > 0) positives[next++] = value;
  }
  return positives.sort();
}

/**
 * By the values array: a matrix is not changed once built, and the studio shows an unchanged
 * design's matrix again from change to change.
 */
const remembered = new WeakMap<Float64Array, Float64Array>();

/** `sortedPositives`, remembered for as long as `values` lives. */
export function rememberedSortedPositives(values: Float64Array): Float64Array {
  const known = remembered.get(values);
  if (known) return known;
  const positives = sortedPositives(values);
  remembered.set(values, positives);
  return positives;
}

/** How many values of the ascending `list` are below `value` (`orEqual`: at or below). */
function countBelow(list: Float64Array, value: number, orEqual: boolean): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (list[middle]! < value || (orEqual && list[middle] === value)) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The value at 0-based `rank` of all the ascending lists' values together, as their merged sort
 * would have it, without merging: each round takes the middle of the widest list's window as a
 * pivot, counts the values below it in every list, and keeps the side the rank falls in, so the
 * widest window halves each round (m lists of n values: O(m² log² n) comparisons).
 */
export function valueAtRank(lists: readonly Float64Array[], rank: number): number {
  const total = lists.reduce((sum, list) => sum + list.length, 0);
  if (!(Number.isInteger(rank) && rank >= 0 && rank < total)) {
    throw new RangeError(`rank ${rank}: expected an integer in [0, ${total - 1}]`);
  }
  // Each list's window [from, to): values outside it are known to sit on the other side of the answer.
  const from = lists.map(() => 0);
  const to = lists.map((list) => list.length);
  for (;;) {
    let widest = 0;
    for (let index = 1; index < lists.length; index++) {
      if (to[index]! - from[index]! > to[widest]! - from[widest]!) widest = index;
    }
    const pivot = lists[widest]![(from[widest]! + to[widest]!) >>> 1]!;
    const below = lists.map((list) => countBelow(list, pivot, false));
    const atOrBelow = lists.map((list) => countBelow(list, pivot, true));
    const sum = (counts: number[]) => counts.reduce((total, count) => total + count, 0);
    if (rank < sum(below)) {
      below.forEach((count, index) => {
        to[index] = Math.min(to[index]!, count);
      });
    } else if (rank < sum(atOrBelow)) {
      return pivot;
    } else {
      atOrBelow.forEach((count, index) => {
        from[index] = Math.max(from[index]!, count);
      });
    }
  }
}

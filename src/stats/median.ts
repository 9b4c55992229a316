/** Medians for the pure modules (simulator, monitor, heatmap patterns). */

/** The middle of already sorted values (the mean of the two middle ones); 0 when there are none. */
export function medianOfSorted(sorted: ArrayLike<number>): number {
  if (sorted.length === 0) return 0;
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The median of `values`, which stay unsorted. */
export function median(values: ArrayLike<number>): number {
  return medianOfSorted(Array.from(values).sort((a, b) => a - b));
}

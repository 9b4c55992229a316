/** Picking "up to `count` keys roughly evenly spread" (SampleRowKeys) for stores without tablets. */
import { StoreArgumentError } from "./store.js";

/** Checked once, by the store base, before a store samples. */
export function checkSampleCount(count: number): void {
  if (!Number.isSafeInteger(count) || count < 0) {
    const allowed = "an integer ≥ 0";
    throw new StoreArgumentError("count", count, allowed, `count is ${count}; allowed: ${allowed}`);
  }
}

/** Up to `count` indexes spread evenly over `[0, length)`, ascending and distinct. */
export function evenlySpaced(length: number, count: number): number[] {
  const n = Math.min(count, length);
  return Array.from({ length: n }, (_, i) => Math.floor((i * length) / n));
}

/**
 * Samples a sorted key stream of unknown length in one pass and O(count) memory: keeps every
 * `stride`-th key, halving the kept set (and doubling the stride) whenever it reaches 2 × count.
 */
export async function sampleSorted(keys: AsyncIterable<Buffer[]>, count: number): Promise<Buffer[]> {
  if (count === 0) return [];
  let kept: Buffer[] = [];
  let stride = 1;
  let seen = 0;
  for await (const chunk of keys) {
    for (const key of chunk) {
      if (seen++ % stride !== 0) continue;
      kept.push(key);
      if (kept.length === 2 * count) {
        kept = kept.filter((_, i) => i % 2 === 0);
        stride *= 2;
      }
    }
  }
  return evenlySpaced(kept.length, count).map((i) => kept[i]!);
}

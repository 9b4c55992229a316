/**
 * Where a tablet splits: the key that halves its load (a load split) or its stored bytes (a size
 * split), found on the cumulative weight of one or more densities. Between sampled keys the weight
 * grows smoothly and the key is found by bisection; a single key's weight (one row) is never cut, so
 * a tablet whose weight sits on one key cannot split.
 */

import { keyAtFraction, mergeDistinct } from "../cluster/key-space.js";
import type { SplitPoint } from "../cluster/tablets.js";
import type { Density } from "./density.js";

export interface Layer {
  density: Density;
  /** Weight of each quantity (WRITES … COST) in this layer. */
  weights: ArrayLike<number>;
}

const BISECTIONS = 50;
/** Close enough to the target: a thousandth of the tablet's weight. */
const TOLERANCE = 1e-3;

const weightBelow = (layers: readonly Layer[], key: Buffer | null) =>
  layers.reduce((sum, layer) => sum + layer.density.weightBelow(key, layer.weights), 0);

/**
 * The key inside `(start, end)` that leaves `fraction` (default half) of the weight of `by` left
 * of it, with the shares of load and of stored bytes left of it; null when no key splits it (no
 * weight, or all on one key).
 */
export function findSplitPoint(
  start: Buffer,
  end: Buffer | null,
  by: readonly Layer[],
  shares: { load: readonly Layer[]; bytes: readonly Layer[] },
  fraction = 0.5,
): SplitPoint | null {
  return findSplitPoints(start, end, by, shares, [fraction])[0]!;
}

/** `findSplitPoint` at several fractions, sorting the range's sampled keys once. */
export function findSplitPoints(
  start: Buffer,
  end: Buffer | null,
  by: readonly Layer[],
  shares: { load: readonly Layer[]; bytes: readonly Layer[] },
  fractions: readonly number[],
): (SplitPoint | null)[] {
  const weighing = by.filter(carriesWeight);
  const below = (key: Buffer | null) => weightBelow(weighing, key);
  const low = below(start);
  const total = below(end) - low;
  if (!(total > 0)) return fractions.map(() => null);
  const candidates = mergeDistinct(weighing.map((layer) => layer.density.keysInside(start, end)));
  return fractions.map((fraction) => {
    const target = low + total * fraction;
    // The first candidate at or past the target; the crossing lies after the candidate before it.
    let first = 0;
    let last = candidates.length;
    while (first < last) {
      const middle = (first + last) >> 1;
      if (below(candidates[middle]!) >= target) last = middle;
      else first = middle + 1;
    }
    const from = first > 0 ? candidates[first - 1]! : start;
    const to = first < candidates.length ? candidates[first]! : end;
    const key = crossing(from, to, start, end, target, low, total, below);
    if (key === null) return null;
    const loadShare = share(shares.load, start, end, key);
    return {
      key,
      loadShare: loadShare ?? 0.5,
      bytesShare: share(shares.bytes, start, end, key) ?? loadShare ?? 0.5,
    };
  });
}

/** The key in `(from, to]` where the weight crosses `target`, strictly inside `(start, end)`. */
function crossing(
  from: Buffer,
  to: Buffer | null,
  start: Buffer,
  end: Buffer | null,
  target: number,
  low: number,
  total: number,
  below: (key: Buffer | null) => number,
): Buffer | null {
  const inside = (key: Buffer) =>
    Buffer.compare(key, start) > 0 && (end === null || Buffer.compare(key, end) < 0);
  const left = (key: Buffer) => below(key) - low;
  const useful = (key: Buffer) => inside(key) && left(key) > 0 && left(key) < total;
  // A key's own weight (an atom at `from`) may carry the middle: cut just before or just after it.
  const after = Buffer.concat([from, Buffer.alloc(1)]);
  if (below(after) >= target) {
    const options = [from, after].filter(useful);
    if (options.length === 0) return null;
    return options.reduce((best, key) =>
      Math.abs(below(key) - target) < Math.abs(below(best) - target) ? key : best,
    );
  }
  if (to === null) return null;
  let lowFraction = 0;
  let highFraction = 1;
  for (let step = 0; step < BISECTIONS; step++) {
    const fraction = (lowFraction + highFraction) / 2;
    const key = keyAtFraction(after, to, fraction);
    if (key === null) break;
    const weight = below(key);
    if (Math.abs(weight - target) <= TOLERANCE * total) return useful(key) ? key : null;
    if (weight < target) lowFraction = fraction;
    else highFraction = fraction;
  }
  const key = keyAtFraction(after, to, highFraction) ?? to;
  return useful(key) ? key : useful(after) ? after : null;
}

const carriesWeight = (layer: Layer) =>
  layer.density.size > 0 && Array.prototype.some.call(layer.weights, (weight: number) => weight !== 0);

function share(all: readonly Layer[], start: Buffer, end: Buffer | null, key: Buffer): number | null {
  const layers = all.filter(carriesWeight);
  const low = weightBelow(layers, start);
  const total = weightBelow(layers, end) - low;
  return total > 0 ? (weightBelow(layers, key) - low) / total : null;
}

/**
 * Load over the key space from sampled keys. Each source carries per-second quantities (writes,
 * reads, rows, bytes, stored bytes, cost); a source that stands for many entities (a sample of a
 * large group) spreads its load evenly up to the next source's key, as the unsampled entities
 * between them would; a source that is one entity's key (or one written key) is an atom that no
 * split can cut. Any key range's load is then a difference of cumulative sums, so tablets can split
 * anywhere, however few sources there are.
 */
import { compareKeys, keyFraction, keyPrefix, sharedPrefixLength } from "../cluster/key-space.js";
import { QUANTITIES } from "../cluster/tablets.js";

export interface Source {
  key: Buffer;
  /** Per-second quantities, indexed as in tablets.ts (WRITES … COST). */
  values: ArrayLike<number>;
  /** Spread up to the next source's key (a sample of many), or an atom at `key` (one entity). */
  spread: boolean;
}

export class Density {
  private readonly keys: Buffer[];
  /** Bytes every source key shares (`shared`), and each key's next six bytes as a number. */
  private readonly offset: number;
  private readonly shared: Buffer;
  private readonly keyPrefixes: Float64Array;
  private readonly spread: Uint8Array;
  private readonly values: Float64Array;
  /** `prefix[i × QUANTITIES + q]`: quantity q summed over sources before i. */
  private readonly prefix: Float64Array;
  /** The source keys once each (several sources may share a key), and each source's place among them. */
  private readonly distinctKeys: Buffer[] = [];
  private readonly distinctIndex: Int32Array;

  constructor(sources: readonly Source[]) {
    this.offset = sharedPrefixLength(sources.map((source) => source.key));
    this.shared = sources[0]?.key.subarray(0, this.offset) ?? Buffer.alloc(0);
    const prefixes = sources.map((source) => keyPrefix(source.key, this.offset));
    const sorted = sources
      .map((_, index) => index)
      .sort((a, b) => compareKeys(sources[a]!.key, prefixes[a]!, sources[b]!.key, prefixes[b]!))
      .map((index) => sources[index]!);
    this.keys = sorted.map((source) => source.key);
    this.keyPrefixes = Float64Array.from(this.keys, (key) => keyPrefix(key, this.offset));
    this.spread = Uint8Array.from(sorted, (source, index) =>
      source.spread && index + 1 < sorted.length ? 1 : 0,
    );
    this.distinctIndex = new Int32Array(this.keys.length);
    this.keys.forEach((key, index) => {
      const previous = index - 1;
      const repeated =
        index > 0 &&
        this.keyPrefixes[previous] === this.keyPrefixes[index] &&
        this.keys[previous]!.equals(key);
      if (!repeated) this.distinctKeys.push(key);
      this.distinctIndex[index] = this.distinctKeys.length - 1;
    });
    this.values = new Float64Array(sorted.length * QUANTITIES);
    this.prefix = new Float64Array((sorted.length + 1) * QUANTITIES);
    sorted.forEach((source, index) => {
      for (let q = 0; q < QUANTITIES; q++) {
        const value = source.values[q] ?? 0;
        this.values[index * QUANTITIES + q] = value;
        this.prefix[(index + 1) * QUANTITIES + q] = this.prefix[index * QUANTITIES + q]! + value;
      }
    });
  }

  get size(): number {
    return this.keys.length;
  }

  /** The lowest and highest source keys, or null when there are none. */
  get keyBounds(): { min: Buffer; max: Buffer } | null {
    return this.keys.length === 0 ? null : { min: this.keys[0]!, max: this.keys[this.keys.length - 1]! };
  }

  /** Adds to `out` each quantity's load below `key` (everything when `key` is null), scaled by `scale`. */
  addBelow(key: Buffer | null, out: Float64Array, scale = 1, offset = 0): void {
    const index = key === null ? this.keys.length : this.lastAtOrBefore(key);
    if (key === null || index < 0) {
      const end = key === null ? this.keys.length : 0;
      for (let q = 0; q < QUANTITIES; q++) out[offset + q]! += this.prefix[end * QUANTITIES + q]! * scale;
      return;
    }
    const share = this.shareBelow(index, key);
    for (let q = 0; q < QUANTITIES; q++) {
      out[offset + q]! +=
        (this.prefix[index * QUANTITIES + q]! + share * this.values[index * QUANTITIES + q]!) * scale;
    }
  }

  /** Σ weights[q] × (load of quantity q below `key`). */
  weightBelow(key: Buffer | null, weights: ArrayLike<number>): number {
    const index = key === null ? this.keys.length : this.lastAtOrBefore(key);
    if (index < 0) return 0;
    const share = key === null ? 0 : this.shareBelow(index, key);
    let total = 0;
    for (let q = 0; q < QUANTITIES; q++) {
      const weight = weights[q]!;
      if (weight !== 0)
        total +=
          weight *
          (this.prefix[index * QUANTITIES + q]! + share * (this.values[index * QUANTITIES + q] ?? 0));
    }
    return total;
  }

  /** The distinct source keys strictly inside `(start, end)`, in order: found by bisection, as a tablet may hold thousands. */
  keysInside(start: Buffer, end: Buffer | null): Buffer[] {
    const first = this.lastAtOrBefore(start) + 1;
    const last = end === null ? this.keys.length - 1 : this.lastAtOrBefore(end);
    if (last < first) return [];
    const from = this.distinctIndex[first]!;
    let to = this.distinctIndex[last]!;
    if (end !== null && this.distinctKeys[to]!.equals(end)) to--;
    return this.distinctKeys.slice(from, to + 1);
  }

  /** Index of the last source whose key is ≤ `key`, or −1. */
  private lastAtOrBefore(key: Buffer): number {
    // Outside the shared prefix, the key sorts before or after every source.
    // The key's head is compared in place: a split check bisects here thousands of times.
    const head = -this.shared.compare(key, 0, Math.min(this.offset, key.length));
    if (head !== 0) return head < 0 ? -1 : this.keys.length - 1;
    const prefix = keyPrefix(key, this.offset);
    let low = 0;
    let high = this.keys.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (compareKeys(this.keys[middle]!, this.keyPrefixes[middle]!, key, prefix) <= 0) low = middle + 1;
      else high = middle;
    }
    return low - 1;
  }

  /** The share of source `index`'s load that lies below `key` (its key ≤ `key`). */
  private shareBelow(index: number, key: Buffer): number {
    const own = this.keys[index]!;
    if (own.equals(key)) return 0;
    return this.spread[index] ? keyFraction(own, this.keys[index + 1]!, key) : 1;
  }
}

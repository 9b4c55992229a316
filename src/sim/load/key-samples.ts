/**
 * Written keys kept for choosing split points where no static density exists: the most recent
 * operations (where load is now; TiKV samples request keys the same way) and a uniform reservoir of
 * every write so far (where stored bytes are, for size splits).
 */

import { COST, QUANTITIES, STORED } from "../cluster/tablets.js";
import { Density } from "./density.js";

const atom = (key: Buffer, quantity: number, value: number) => {
  const values = new Float64Array(QUANTITIES);
  values[quantity] = value;
  return { key, values, spread: false };
};

/**
 * A key as text whose code units are its bytes (latin1): text compares in the order of the bytes,
 * in JavaScript, where a split check's scan over thousands of kept keys with `Buffer.compare` was a
 * native call per key and bound, a third of an advisor run.
 */
const sortable = (key: Buffer) => key.toString("latin1");

/** A kept key, with its `sortable` text for range filters. */
interface KeptKey {
  key: Buffer;
  text: string;
}

const kept = (key: Buffer): KeptKey => ({ key, text: sortable(key) });

/** The last `capacity` operation keys, each weighing its cost (node-seconds per second). */
export class RecentKeys {
  private readonly keys: (KeptKey & { cost: number })[] = [];
  private next = 0;

  constructor(private readonly capacity: number) {}

  add(key: Buffer, cost: number): void {
    const entry = { ...kept(key), cost };
    if (this.keys.length < this.capacity) this.keys.push(entry);
    else this.keys[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
  }

  clear(): void {
    this.keys.length = 0;
    this.next = 0;
  }

  /** The keys inside `[start, end)`, each weighing its cost. */
  density(start: Buffer, end: Buffer | null): Density {
    const isInside = inside(start, end);
    return new Density(
      this.keys.filter(({ text }) => isInside(text)).map(({ key, cost }) => atom(key, COST, cost)),
    );
  }
}

/** Whether a key (as `sortable` text) lies in `[start, end)`. */
function inside(start: Buffer, end: Buffer | null): (text: string) => boolean {
  const low = sortable(start);
  if (end === null) return (text) => text >= low;
  const high = sortable(end);
  return (text) => text >= low && text < high;
}

/** A uniform sample (Vitter's algorithm R) of written keys, each standing for an equal share of the bytes written. */
export class KeyReservoir {
  private readonly keys: KeptKey[] = [];
  private seen = 0;
  private bytes = 0;
  private random = 0x9e3779b9;

  constructor(private readonly capacity: number) {}

  add(key: Buffer, bytes: number): void {
    this.seen++;
    this.bytes += bytes;
    if (this.keys.length < this.capacity) {
      this.keys.push(kept(key));
      return;
    }
    const slot = this.nextRandom() % this.seen;
    if (slot < this.capacity) this.keys[slot] = kept(key);
  }

  /** The kept keys inside `[start, end)`, each weighing one stored byte: weigh the layer by `bytesPerKey`. */
  density(start: Buffer, end: Buffer | null): Density {
    const isInside = inside(start, end);
    return new Density(this.keys.filter(({ text }) => isInside(text)).map(({ key }) => atom(key, STORED, 1)));
  }

  get bytesPerKey(): number {
    return this.keys.length > 0 ? this.bytes / this.keys.length : 0;
  }

  /** xorshift32: reproducible runs, no global Math.random. */
  private nextRandom(): number {
    let x = this.random;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.random = x >>> 0;
    return this.random;
  }
}

/** The lowest and highest of the keys seen. */
export class KeyBounds {
  min: Buffer | null = null;
  max: Buffer | null = null;

  add(key: Buffer): void {
    if (this.min === null || Buffer.compare(key, this.min) < 0) this.min = key;
    if (this.max === null || Buffer.compare(key, this.max) > 0) this.max = key;
  }

  get bounds(): { min: Buffer; max: Buffer } | null {
    return this.min === null || this.max === null ? null : { min: this.min, max: this.max };
  }
}

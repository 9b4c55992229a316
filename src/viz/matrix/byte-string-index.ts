/**
 * Distinct byte strings numbered 0, 1, 2… in order of first sight, looked up straight from a slice
 * of a larger buffer (a line of a log): an open-addressing hash table over one byte arena, so a
 * lookup makes no string and no Buffer. Pure.
 */

import { xxHash32 } from "../../keys/hash/xxhash32.js";

const EMPTY = -1;

/** The salt's hash, as a 32-bit signed integer, as the table stores it. */
const hashBytes = (bytes: Uint8Array, start: number, end: number): number => xxHash32(bytes, start, end) | 0;

export class ByteStringIndex {
  size = 0;
  private arena = new Uint8Array(1 << 16);
  private arenaUsed = 0;
  /** Per string: where its bytes start in the arena; `offsets[i + 1]` is where they end. */
  private offsets = new Int32Array(1 << 10);
  private hashes = new Int32Array(1 << 10);
  /** String numbers by hash, EMPTY where free; a power of two in size, at most half full. */
  private slots = new Int32Array(1 << 11).fill(EMPTY);

  /** The number of `bytes[start, end)`, or -1 when it was never added. */
  lookup(bytes: Uint8Array, start: number, end: number): number {
    const hash = hashBytes(bytes, start, end);
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const index = this.slots[slot]!;
      if (index === EMPTY) return -1;
      if (this.hashes[index] === hash && this.equals(index, bytes, start, end)) return index;
    }
  }

  /** Adds `bytes[start, end)`, which must not be in the index yet, and returns its number. */
  add(bytes: Uint8Array, start: number, end: number): number {
    const index = this.size++;
    if (this.size + 1 > this.offsets.length) {
      this.offsets = grown(this.offsets, this.offsets.length * 2);
      this.hashes = grown(this.hashes, this.hashes.length * 2);
    }
    const length = end - start;
    if (this.arenaUsed + length > this.arena.length) {
      this.arena = grown(this.arena, Math.max(2 * this.arena.length, this.arenaUsed + length));
    }
    this.arena.set(bytes.subarray(start, end), this.arenaUsed);
    this.arenaUsed += length;
    this.offsets[index + 1] = this.arenaUsed;
    this.hashes[index] = hashBytes(bytes, start, end);
    if (2 * this.size > this.slots.length) this.rehash(2 * this.slots.length);
    else this.place(index);
    return index;
  }

  private equals(index: number, bytes: Uint8Array, start: number, end: number): boolean {
    const from = this.offsets[index]!;
    if (this.offsets[index + 1]! - from !== end - start) return false;
    for (let at = 0; at < end - start; at++) if (this.arena[from + at] !== bytes[start + at]) return false;
    return true;
  }

  private place(index: number): void {
    const mask = this.slots.length - 1;
    let slot = this.hashes[index]! & mask;
    while (this.slots[slot] !== EMPTY) slot = (slot + 1) & mask;
    this.slots[slot] = index;
  }

  private rehash(slots: number): void {
    this.slots = new Int32Array(slots).fill(EMPTY);
    for (let index = 0; index < this.size; index++) this.place(index);
  }
}

function grown<T extends Uint8Array | Int32Array>(old: T, size: number): T {
  const next = new (old.constructor as new (size: number) => T)(size);
  next.set(old);
  return next;
}

/**
 * xxHash32 (seed 0 by default) over `bytes[start, end)`, unsigned.
 *
 * Written out here rather than called through xxhash-wasm: the salt hashes a slice of the key
 * being built, and crossing into WebAssembly (a subarray plus a copy into its memory) cost ~150 ns
 * per key — half the key-encoding budget. The algorithm is the published spec; the tests check it
 * against xxhash-wasm on random inputs and against the spec's vectors.
 */
const PRIME1 = 0x9e3779b1;
const PRIME2 = 0x85ebca77;
const PRIME3 = 0xc2b2ae3d;
const PRIME4 = 0x27d4eb2f;
const PRIME5 = 0x165667b1;

const rotl = (x: number, r: number) => (x << r) | (x >>> (32 - r));
const read32 = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24);
const round = (acc: number, input: number) =>
  Math.imul(rotl((acc + Math.imul(input, PRIME2)) | 0, 13), PRIME1);

export function xxHash32(bytes: Uint8Array, start = 0, end = bytes.length, seed = 0): number {
  let i = start;
  let h: number;
  if (end - start >= 16) {
    let v1 = (seed + PRIME1 + PRIME2) | 0;
    let v2 = (seed + PRIME2) | 0;
    let v3 = seed | 0;
    let v4 = (seed - PRIME1) | 0;
    for (const limit = end - 16; i <= limit; i += 16) {
      v1 = round(v1, read32(bytes, i));
      v2 = round(v2, read32(bytes, i + 4));
      v3 = round(v3, read32(bytes, i + 8));
      v4 = round(v4, read32(bytes, i + 12));
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) | 0;
  } else {
    h = (seed + PRIME5) | 0;
  }
  h = (h + (end - start)) | 0;
  for (; i + 4 <= end; i += 4) h = Math.imul(rotl((h + Math.imul(read32(bytes, i), PRIME3)) | 0, 17), PRIME4);
  for (; i < end; i++) h = Math.imul(rotl((h + Math.imul(bytes[i]!, PRIME5)) | 0, 11), PRIME1);
  h ^= h >>> 15;
  h = Math.imul(h, PRIME2);
  h ^= h >>> 13;
  h = Math.imul(h, PRIME3);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * packed-data.ts for the browser: the same format (raw DEFLATE, base64) without `node:zlib`. The
 * page's data is JSON whose values repeat a few levels over thousands of cells, so LZ77 matches (a
 * hash chain over the 32 KiB window) in one block of DEFLATE's fixed Huffman codes (RFC 1951
 * §3.2.6) pack the fleet's to a thirteenth (zlib -9: a seventeenth). Stored (uncompressed) blocks
 * made the studio's pages ten times larger than the CLI's: the report escapes its heatmap page into
 * an attribute, the worker clones both to the page and the page parses them, which cost seconds of
 * a change at the fleet's hour.
 */
const WINDOW = 1 << 15;
const MIN_MATCH = 3;
const MAX_MATCH = 258;
const HASH_BITS = 15;
/** Candidates tried per position, and a match long enough to stop looking: speed over the last few %. */
const MAX_CHAIN = 32;
const GOOD_MATCH = 64;
/** Longer matches put only their first position in the chains (zlib's fast levels do the same). */
const MAX_INSERT = 32;

const LENGTH_BASE = [
  3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195,
  227, 258,
];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DISTANCE_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
  6145, 8193, 12289, 16385, 24577,
];
const DISTANCE_EXTRA = [
  0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
];

/** `bits` low bits of `code`, reversed: Huffman codes go out most significant bit first. */
function reversed(code: number, bits: number): number {
  let out = 0;
  for (let i = 0; i < bits; i++) out |= ((code >> i) & 1) << (bits - 1 - i);
  return out;
}

/** The fixed literal/length code of each symbol 0–287, reversed, and its bit count. */
const FIXED_CODES = new Uint16Array(288);
const FIXED_BITS = new Uint8Array(288);
for (let symbol = 0; symbol < 288; symbol++) {
  const [code, bits] =
    symbol < 144
      ? [0x30 + symbol, 8]
      : symbol < 256
        ? [0x190 + symbol - 144, 9]
        : symbol < 280
          ? [symbol - 256, 7]
          : [0xc0 + symbol - 280, 8];
  FIXED_CODES[symbol] = reversed(code, bits);
  FIXED_BITS[symbol] = bits;
}
/** The length code (index into LENGTH_BASE) of each match length 3–258. */
const LENGTH_CODE = new Uint8Array(MAX_MATCH + 1);
for (let code = 0; code < LENGTH_BASE.length; code++) {
  const end = code + 1 < LENGTH_BASE.length ? LENGTH_BASE[code + 1]! : MAX_MATCH + 1;
  for (let length = LENGTH_BASE[code]!; length < end; length++) LENGTH_CODE[length] = code;
}
LENGTH_CODE[MAX_MATCH] = LENGTH_BASE.length - 1;
/** The distance code of each distance 1–32768. */
const DISTANCE_CODE = new Uint8Array(WINDOW + 1);
for (let code = 0; code < DISTANCE_BASE.length; code++) {
  const end = code + 1 < DISTANCE_BASE.length ? DISTANCE_BASE[code + 1]! : WINDOW + 1;
  for (let distance = DISTANCE_BASE[code]!; distance < end; distance++) DISTANCE_CODE[distance] = code;
}
const DISTANCE_CODES_REVERSED = DISTANCE_BASE.map((_, code) => reversed(code, 5));

/** Bits written least significant first into bytes, as DEFLATE packs them. */
class BitWriter {
  readonly bytes: Uint8Array;
  length = 0;
  private pending = 0;
  private pendingBits = 0;

  constructor(capacity: number) {
    this.bytes = new Uint8Array(capacity);
  }

  write(value: number, bits: number): void {
    this.pending |= value << this.pendingBits;
    this.pendingBits += bits;
    while (this.pendingBits >= 8) {
      this.bytes[this.length++] = this.pending & 0xff;
      this.pending >>>= 8;
      this.pendingBits -= 8;
    }
  }

  finish(): Uint8Array {
    if (this.pendingBits > 0) this.bytes[this.length++] = this.pending & 0xff;
    return this.bytes.subarray(0, this.length);
  }
}

/** `bytes` as one final raw-DEFLATE block with fixed Huffman codes. */
export function deflateFixed(bytes: Uint8Array): Uint8Array {
  // Worst case: every byte a 9-bit literal, plus the block header and end-of-block code.
  const out = new BitWriter(Math.ceil((bytes.length * 9) / 8) + 8);
  out.write(1, 1); // BFINAL
  out.write(1, 2); // BTYPE 01: fixed Huffman codes
  const head = new Int32Array(1 << HASH_BITS).fill(-1);
  const previous = new Int32Array(WINDOW);
  const n = bytes.length;
  const hashAt = (i: number) =>
    (((bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!) * 0x9e3779b1) >>> (32 - HASH_BITS);
  const insert = (i: number) => {
    const hash = hashAt(i);
    previous[i & (WINDOW - 1)] = head[hash]!;
    head[hash] = i;
  };
  let i = 0;
  while (i < n) {
    let bestLength = 0;
    let bestDistance = 0;
    if (i + MIN_MATCH <= n) {
      const limit = Math.min(MAX_MATCH, n - i);
      let candidate = head[hashAt(i)]!;
      for (let chain = 0; chain < MAX_CHAIN && candidate >= 0 && i - candidate <= WINDOW; chain++) {
        if (bytes[candidate + bestLength] === bytes[i + bestLength]) {
          let length = 0;
          while (length < limit && bytes[candidate + length] === bytes[i + length]) length++;
          if (length > bestLength) {
            bestLength = length;
            bestDistance = i - candidate;
            if (length >= GOOD_MATCH || length === limit) break;
          }
        }
        candidate = previous[candidate & (WINDOW - 1)]!;
      }
    }
    if (bestLength >= MIN_MATCH) {
      const lengthCode = LENGTH_CODE[bestLength]!;
      const symbol = 257 + lengthCode;
      out.write(FIXED_CODES[symbol]!, FIXED_BITS[symbol]!);
      out.write(bestLength - LENGTH_BASE[lengthCode]!, LENGTH_EXTRA[lengthCode]!);
      const distanceCode = DISTANCE_CODE[bestDistance]!;
      out.write(DISTANCE_CODES_REVERSED[distanceCode]!, 5);
      out.write(bestDistance - DISTANCE_BASE[distanceCode]!, DISTANCE_EXTRA[distanceCode]!);
      // The positions a short match covers go into the chains, so later text can match into them.
      const end = bestLength > MAX_INSERT ? i + 1 : Math.min(i + bestLength, n - MIN_MATCH + 1);
      for (let covered = i; covered < end; covered++) insert(covered);
      i += bestLength;
    } else {
      out.write(FIXED_CODES[bytes[i]!]!, FIXED_BITS[bytes[i]!]!);
      if (i + MIN_MATCH <= n) insert(i);
      i++;
    }
  }
  out.write(FIXED_CODES[256]!, FIXED_BITS[256]!);
  return out.finish();
}

/** Base64 of `bytes`: the typed array's own encoder where the browser has one, else btoa by chunks. */
function base64(bytes: Uint8Array): string {
  const native = (bytes as Uint8Array & { toBase64?: () => string }).toBase64;
  if (native) return native.call(bytes);
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000)
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/**
 * `text` as UTF-8. Chromium's `TextEncoder.encode` runs at a twentieth of the speed of `encodeInto`
 * into a buffer made beforehand (a heatmap page's JSON: 40 ms against 2 ms per MB), so: into room
 * for mostly ASCII, and into room for the worst case (3 bytes per UTF-16 unit) when that is short.
 */
function utf8(text: string): Uint8Array {
  const encoder = new TextEncoder();
  const guess = new Uint8Array(Math.ceil(text.length * 1.1) + 16);
  const { read, written } = encoder.encodeInto(text, guess);
  if (read === text.length) return guess.subarray(0, written);
  const room = new Uint8Array(text.length * 3);
  return room.subarray(0, encoder.encodeInto(text, room).written);
}

/** `json` as text, or as its UTF-8 bytes. */
export function packData(json: string | Uint8Array): string {
  return base64(deflateFixed(typeof json === "string" ? utf8(json) : json));
}

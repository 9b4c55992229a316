/**
 * The embedded store keeps one LevelDB entry per cell, so a put writes the cells it names and
 * nothing else, without reading the row first. An entry's key is the row key escaped
 * memcomparably (00 → 00 FF), then the terminator 00 01, then the qualifier's UTF-8; the value is
 * the cell's bytes. Escaping keeps row order (a row sorts before its extensions, whose next
 * escaped byte is 00 FF or above) and keeps every cell of a row contiguous. Every entry key is
 * at least 00 FF, so keys below 00 01 are free for the store's own metadata.
 */

const TERMINATOR = Buffer.from([0x00, 0x01]);

/** The lowest possible cell entry key is above this; the store's metadata sorts below it. */
export const FIRST_CELL_KEY = Buffer.from([0x00, 0x01]);

/** The row key escaped (00 → 00 FF), without the terminator: an exact edge for row ranges. */
export function escapeRowKey(row: Uint8Array): Buffer {
  let zeros = 0;
  for (const byte of row) if (byte === 0) zeros++;
  if (zeros === 0) return Buffer.from(row);
  const out = Buffer.allocUnsafe(row.length + zeros);
  let at = 0;
  for (const byte of row) {
    out[at++] = byte;
    if (byte === 0) out[at++] = 0xff;
  }
  return out;
}

/** The key prefix every cell of the row starts with (escaped row key + 00 01). */
export function rowPrefix(row: Uint8Array): Buffer {
  return Buffer.concat([escapeRowKey(row), TERMINATOR]);
}

/** The first key after every cell of the row with this prefix. */
export function rowPrefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  end[end.length - 1] = 0x02;
  return end;
}

/** The entry key of a row's cell, built in one allocation (this runs for every cell written). */
export function cellKey(row: Uint8Array, qualifier: string): Buffer {
  const escaped = row.indexOf(0) < 0 ? row : escapeRowKey(row);
  const name = qualifierBytes(qualifier);
  const key = Buffer.allocUnsafe(escaped.length + TERMINATOR.length + name.length);
  key.set(escaped, 0);
  key[escaped.length] = 0x00;
  key[escaped.length + 1] = 0x01;
  key.set(name, escaped.length + TERMINATOR.length);
  return key;
}

/** A table has few distinct qualifiers: their UTF-8 bytes are encoded once (bounded cache). */
const qualifierCache = new Map<string, Buffer>();
const MAX_CACHED_QUALIFIERS = 4096;

function qualifierBytes(qualifier: string): Buffer {
  let bytes = qualifierCache.get(qualifier);
  if (bytes === undefined) {
    bytes = Buffer.from(qualifier, "utf8");
    if (qualifierCache.size >= MAX_CACHED_QUALIFIERS) qualifierCache.clear();
    qualifierCache.set(qualifier, bytes);
  }
  return bytes;
}

/** Splits a cell entry key into its row prefix length, the row key and the qualifier. */
export function splitCellKey(key: Buffer): { prefixLength: number; row: Buffer; qualifier: string } {
  const zero = key.indexOf(0);
  // Most row keys hold no 00 byte: the first 00 is the terminator's.
  if (zero >= 0 && key[zero + 1] === 0x01) {
    return { prefixLength: zero + 2, row: key.subarray(0, zero), qualifier: key.toString("utf8", zero + 2) };
  }
  const bytes: number[] = [];
  for (let i = 0; i < key.length; i++) {
    const byte = key[i]!;
    if (byte !== 0) {
      bytes.push(byte);
      continue;
    }
    const next = key[++i];
    if (next === 0x01)
      return { prefixLength: i + 1, row: Buffer.from(bytes), qualifier: key.toString("utf8", i + 1) };
    if (next !== 0xff) break;
    bytes.push(0);
  }
  throw new Error(`embedded store entry ${key.toString("hex")} is not a cell key (corrupted?)`);
}

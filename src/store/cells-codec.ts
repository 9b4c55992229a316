/**
 * The embedded store's value format for a row's cells: a version byte, then per cell a varint
 * qualifier length, the UTF-8 qualifier, a varint value length and the value. Compact (two bytes
 * of framing for short cells) and self-delimiting, so values may hold any bytes.
 */

const FORMAT_VERSION = 1;

export function encodeCells(cells: ReadonlyMap<string, Buffer>): Buffer {
  let size = 1;
  cells.forEach((value, qualifier) => {
    size += framedQualifier(qualifier).length + varintBytes(value.length) + value.length;
  });
  // One allocation per row: this runs for every row of every write.
  const out = Buffer.allocUnsafe(size);
  out[0] = FORMAT_VERSION;
  let at = 1;
  cells.forEach((value, qualifier) => {
    at += framedQualifier(qualifier).copy(out, at);
    at = writeVarint(out, at, value.length);
    at += value.copy(out, at);
  });
  return out;
}

/** A table has few distinct qualifiers: their framed bytes are encoded once (bounded cache). */
const framedQualifiers = new Map<string, Buffer>();
const MAX_CACHED_QUALIFIERS = 4096;

function framedQualifier(qualifier: string): Buffer {
  let framed = framedQualifiers.get(qualifier);
  if (framed === undefined) {
    const name = Buffer.from(qualifier, "utf8");
    framed = Buffer.allocUnsafe(varintBytes(name.length) + name.length);
    name.copy(framed, writeVarint(framed, 0, name.length));
    if (framedQualifiers.size >= MAX_CACHED_QUALIFIERS) framedQualifiers.clear();
    framedQualifiers.set(qualifier, framed);
  }
  return framed;
}

export function decodeCells(bytes: Buffer): Map<string, Buffer> {
  if (bytes[0] !== FORMAT_VERSION) {
    throw new Error(
      `stored cells have format version ${bytes[0]}; this keyspread reads version ${FORMAT_VERSION}`,
    );
  }
  const cells = new Map<string, Buffer>();
  const cursor = { at: 1 };
  while (cursor.at < bytes.length) {
    const qualifier = take(bytes, cursor).toString("utf8");
    cells.set(qualifier, Buffer.from(take(bytes, cursor)));
  }
  return cells;
}

function varintBytes(value: number): number {
  let bytes = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 0x80)) bytes++;
  return bytes;
}

function writeVarint(out: Buffer, at: number, value: number): number {
  let position = at;
  let rest = value;
  while (rest >= 0x80) {
    out[position++] = (rest & 0x7f) | 0x80;
    rest = Math.floor(rest / 0x80);
  }
  out[position++] = rest;
  return position;
}

/** Reads one length-prefixed field at `cursor.at` and advances past it. */
function take(bytes: Buffer, cursor: { at: number }): Buffer {
  let length = 0;
  let scale = 1;
  for (;;) {
    const byte = bytes[cursor.at++];
    if (byte === undefined) throw new Error("stored cells are truncated (in a length)");
    length += (byte & 0x7f) * scale;
    if (byte < 0x80) break;
    scale *= 0x80;
  }
  const end = cursor.at + length;
  if (end > bytes.length) throw new Error("stored cells are truncated (in a field)");
  const field = bytes.subarray(cursor.at, end);
  cursor.at = end;
  return field;
}

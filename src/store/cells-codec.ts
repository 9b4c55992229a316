/**
 * The embedded store's value format for a row's cells: a version byte, then per cell a varint
 * qualifier length, the UTF-8 qualifier, a varint value length and the value. Compact (two bytes
 * of framing for short cells) and self-delimiting, so values may hold any bytes.
 */

const FORMAT_VERSION = 1;

export function encodeCells(cells: ReadonlyMap<string, Buffer>): Buffer {
  const parts: Buffer[] = [Buffer.of(FORMAT_VERSION)];
  for (const [qualifier, value] of cells) {
    const name = Buffer.from(qualifier, "utf8");
    parts.push(varint(name.length), name, varint(value.length), value);
  }
  return Buffer.concat(parts);
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

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
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

/** Byte helpers for row keys: Bigtable orders keys as unsigned bytes. */
import { KeyTextError } from "./errors.js";

/**
 * The smallest byte string greater than every string that starts with `prefix`: increment the last
 * byte that is not 0xFF and drop what follows it. `null` when no such string exists (empty or all
 * 0xFF), meaning "to the end of the table".
 */
export function prefixSuccessor(prefix: Uint8Array): Buffer | null {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const byte = prefix[i]!;
    if (byte !== 0xff) {
      const next = Buffer.from(prefix.subarray(0, i + 1));
      next[i] = byte + 1;
      return next;
    }
  }
  return null;
}

/** The immediate successor of a key: `key + 0x00`, so `[key, keySuccessor(key))` holds only `key`. */
export function keySuccessor(key: Uint8Array): Buffer {
  const next = Buffer.alloc(key.length + 1);
  next.set(key);
  return next;
}

/** Whether every byte is printable ASCII, so the key can be shown as text. */
export function isPrintableAscii(bytes: Uint8Array): boolean {
  for (const byte of bytes) if (byte < 0x20 || byte > 0x7e) return false;
  return true;
}

/** Bytes from hex text, or an error naming the text (an even number of 0-9a-f). */
export function parseHex(text: string): Buffer {
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(text))
    throw new KeyTextError(text, `${JSON.stringify(text)} is not hex (an even number of 0-9a-f)`);
  return Buffer.from(text, "hex");
}

/**
 * Keys as people read and write them: printable ASCII stays text, anything else is `hex:` + lowercase
 * hex. Access logs use the same notation, so a key printed in a tooltip can be pasted back into a log.
 */

import { isPrintableAscii } from "./bytes.js";
import { KeyTextError } from "./errors.js";

const HEX_PREFIX = "hex:";

export function displayKey(key: Buffer): string {
  return isPrintableAscii(key) && !key.toString("latin1").startsWith(HEX_PREFIX)
    ? key.toString("latin1")
    : HEX_PREFIX + key.toString("hex");
}

/** Parses `hex:0a1b…` as bytes and any other text as UTF-8. */
export function parseKeyText(text: string): Buffer {
  if (!text.startsWith(HEX_PREFIX)) return Buffer.from(text, "utf8");
  const hex = text.slice(HEX_PREFIX.length);
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) {
    throw new KeyTextError(text, `key "${text}": after "hex:" expected an even number of hex digits`);
  }
  return Buffer.from(hex, "hex");
}

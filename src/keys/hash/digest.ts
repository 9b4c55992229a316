/**
 * The two digests the key core needs (MD5 for the game-studio salt, SHA-256 for a schema's id), on
 * Node's crypto. The one seam between the pure key core and Node: the studio's bundle swaps in
 * digest-browser.ts (same functions in plain TypeScript), so no `node:` module reaches the page.
 */
import { hash } from "node:crypto";

/** The 16-byte MD5 digest of `bytes`. */
export function md5(bytes: Uint8Array): Uint8Array {
  return hash("md5", bytes, "buffer");
}

/** The SHA-256 digest of `text` (UTF-8), as lower-case hex. */
export function sha256Hex(text: string): string {
  return hash("sha256", text, "hex");
}

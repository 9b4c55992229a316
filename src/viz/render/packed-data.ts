/**
 * The heatmap page's data as the page's script reads it: raw DEFLATE, base64. Node's zlib here; the
 * studio's bundle swaps in packed-data-browser.ts, so the page renderer brings no `node:` module.
 */
import { deflateRawSync } from "node:zlib";

/** `json` as text, or as its UTF-8 bytes. */
export function packData(json: string | Uint8Array): string {
  return deflateRawSync(json, { level: 9 }).toString("base64");
}

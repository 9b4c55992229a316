/**
 * packed-data.ts for the browser: the same format (raw DEFLATE, base64) without `node:zlib`, by
 * fflate's synchronous deflate (the studio makes its files inside one synchronous run, so the
 * browser's asynchronous CompressionStream does not fit). Uncompressed, the studio's pages were ten
 * times larger than the CLI's: the report escapes its heatmap page into an attribute, the worker
 * clones both to the page and the page parses them, which cost seconds of a change at the fleet's hour.
 */
import { deflateSync } from "fflate";

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

/**
 * `json` as text, or as its UTF-8 bytes, at fflate's default level (6): on the fleet's 14.6 MB of
 * heatmap JSON 0.16 s and 318 kB, where the hand-written encoder it replaced took 0.16 s for 476 kB;
 * its faster levels pack a heatmap's repeated values to over twice zlib's size.
 */
export function packData(json: string | Uint8Array): string {
  return base64(deflateSync(typeof json === "string" ? utf8(json) : json));
}

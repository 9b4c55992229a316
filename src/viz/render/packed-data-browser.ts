/**
 * packed-data.ts for the browser: the same format (raw DEFLATE, base64) without compressing, as
 * DEFLATE's stored blocks (RFC 1951 §3.2.4), which every inflater reads. The studio shows the page
 * from memory, so its size does not matter there; the files it exports are the CLI's (packed by Node
 * when `lab --out` writes them, by this when the studio exports them).
 */
const STORED_BLOCK = 0xffff;

/** `json` as text, or as its UTF-8 bytes. */
export function packData(json: string | Uint8Array): string {
  const bytes = typeof json === "string" ? new TextEncoder().encode(json) : json;
  const blocks = Math.max(1, Math.ceil(bytes.length / STORED_BLOCK));
  const out = new Uint8Array(bytes.length + 5 * blocks);
  let at = 0;
  for (let block = 0; block < blocks; block++) {
    const chunk = bytes.subarray(block * STORED_BLOCK, (block + 1) * STORED_BLOCK);
    out[at] = block === blocks - 1 ? 1 : 0; // BFINAL on the last; BTYPE 00 = stored
    out[at + 1] = chunk.length & 0xff;
    out[at + 2] = chunk.length >> 8;
    out[at + 3] = ~chunk.length & 0xff;
    out[at + 4] = (~chunk.length >> 8) & 0xff;
    out.set(chunk, at + 5);
    at += 5 + chunk.length;
  }
  let text = "";
  for (let i = 0; i < out.length; i += 0x8000) text += String.fromCharCode(...out.subarray(i, i + 0x8000));
  return btoa(text);
}

/**
 * The shareable state in a URL's fragment: `#s=` and the run's request (YAML, controls, run
 * options) as JSON, raw-DEFLATE'd and base64url'd. The fragment never reaches a server, so a
 * static host serves any link. Web streams only: the page and `keyspread studio` (Node) both use it.
 */
import type { StudioRequest } from "./studio-run.js";

const PREFIX = "#s=";

async function through(
  bytes: Uint8Array,
  stream: CompressionStream | DecompressionStream,
): Promise<Uint8Array> {
  const out = new Blob([new Uint8Array(bytes)]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

export async function shareFragment(request: StudioRequest): Promise<string> {
  const packed = await through(
    new TextEncoder().encode(JSON.stringify(request)),
    new CompressionStream("deflate-raw"),
  );
  let text = "";
  for (const byte of packed) text += String.fromCharCode(byte);
  return PREFIX + btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The request a fragment carries; undefined when it carries none (throws when it is damaged). */
export async function requestOfFragment(fragment: string): Promise<StudioRequest | undefined> {
  if (!fragment.startsWith(PREFIX)) return undefined;
  const text = atob(fragment.slice(PREFIX.length).replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = Uint8Array.from(text, (char) => char.charCodeAt(0));
  const json = new TextDecoder().decode(await through(bytes, new DecompressionStream("deflate-raw")));
  const request = JSON.parse(json) as StudioRequest;
  if (typeof request.yaml !== "string" || typeof request.controls !== "object" || request.controls === null)
    throw new Error("the link's scenario is damaged: expected YAML and controls");
  return request;
}

/**
 * A ReadRows request's row set is kept well under the sizes users saw Bigtable refuse: requests
 * failed with INVALID_ARGUMENT from a 512 KiB serialized request (googleapis/google-cloud-python#6836),
 * and Google's engineers cite a 1 MB limit on the row set (googleapis/google-cloud-go#732). A read
 * of more ranges than fit one request is sent as consecutive requests, each at most
 * `MAX_ROW_RANGES_PER_REQUEST` ranges and `MAX_ROW_SET_BYTES` of range edges.
 */
import type { KeyRange } from "../store.js";

/** Ranges per ReadRows request: a 256-bucket table's window read is two requests. */
export const MAX_ROW_RANGES_PER_REQUEST = 128;
/** Bytes of range edges per request: an eighth of the smallest size reported to fail. */
export const MAX_ROW_SET_BYTES = 64 * 1024;
/** Protobuf framing per range edge and per range (tags and lengths), counted generously. */
const FRAMING_BYTES_PER_RANGE = 16;

/** Bytes a range takes in a request's row set, framing included. */
export function rowSetBytes(range: KeyRange): number {
  return range.start.length + (range.end?.length ?? 0) + FRAMING_BYTES_PER_RANGE;
}

/** Sorted ranges cut, in order, into groups each fitting one request (never an empty group). */
export function rowSetChunks(ranges: readonly KeyRange[]): KeyRange[][] {
  const chunks: KeyRange[][] = [];
  let chunk: KeyRange[] = [];
  let bytes = 0;
  for (const range of ranges) {
    const size = rowSetBytes(range);
    if (
      chunk.length > 0 &&
      (chunk.length >= MAX_ROW_RANGES_PER_REQUEST || bytes + size > MAX_ROW_SET_BYTES)
    ) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(range);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

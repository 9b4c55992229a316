/**
 * A file's bytes in chunks, the next chunk read while the caller works on this one: two buffers
 * taken in turn, so a long read allocates nothing per chunk and rarely waits for the disk.
 */
import { open } from "node:fs/promises";
import { VizArgumentError } from "./viz-argument-error.js";

const DEFAULT_CHUNK_BYTES = 1 << 20;

/** Each chunk is valid only until the next one is asked for: its buffer is then read into again. */
export async function* fileChunks(path: string, chunkBytes = DEFAULT_CHUNK_BYTES): AsyncGenerator<Buffer> {
  if (!Number.isInteger(chunkBytes) || chunkBytes < 1) {
    throw new VizArgumentError("chunk bytes", chunkBytes, "a positive integer");
  }
  const file = await open(path, "r");
  const buffers = [Buffer.allocUnsafe(chunkBytes), Buffer.allocUnsafe(chunkBytes)] as const;
  let reading = file.read(buffers[0], 0, chunkBytes, null);
  try {
    for (let turn = 0; ; turn = 1 - turn) {
      const { bytesRead } = await reading;
      if (bytesRead === 0) return;
      reading = file.read(buffers[1 - turn]!, 0, chunkBytes, null);
      yield buffers[turn]!.subarray(0, bytesRead);
    }
  } finally {
    // The read ahead may still be under way when the caller stops early (or fails): let it end
    // before closing. Its own failure matters to no one then, the caller having stopped reading.
    await reading.catch(() => undefined);
    await file.close();
  }
}

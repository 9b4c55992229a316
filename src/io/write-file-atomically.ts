/** Whole-file writes that readers and crashes see entirely or not at all. */
import { open, rename } from "node:fs/promises";
import { dirname } from "node:path";
import { syncDirectory } from "./sync-directory.js";

/**
 * Writes `content` to a temporary file beside `path`, then renames it over `path`: anyone reading
 * (or a crash) sees the old file or the new one, never half of one. `durable` also fsyncs the
 * data before the rename and the directory after it, for files a restart must trust (checkpoints,
 * revoked keys): without the directory's fsync a power loss can bring the old file back.
 */
export async function writeFileAtomically(
  path: string,
  content: string | Uint8Array,
  options: { durable?: boolean } = {},
): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  const handle = await open(temporary, "w");
  try {
    await handle.writeFile(content);
    if (options.durable) await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, path);
  if (options.durable) syncDirectory(dirname(path));
}

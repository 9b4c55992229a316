/** Whole-file writes that readers and crashes see entirely or not at all. */
import { open, rename } from "node:fs/promises";

/**
 * Writes `content` to a temporary file beside `path`, then renames it over `path`: anyone reading
 * (or a crash) sees the old file or the new one, never half of one. `durable` also fsyncs the
 * data before the rename, for files a restart must trust (checkpoints).
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
}

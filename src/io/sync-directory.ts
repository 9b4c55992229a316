/** Makes a directory's entries (files just created, renamed or removed) survive a power loss. */
import { closeSync, fdatasyncSync, openSync } from "node:fs";

export function syncDirectory(directory: string): void {
  const handle = openSync(directory, "r");
  try {
    fdatasyncSync(handle);
  } finally {
    closeSync(handle);
  }
}

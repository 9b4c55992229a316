/**
 * Vitest global setup: the run's temporary files go under one directory of its own (TMPDIR, which
 * os.tmpdir() and the CLI children the tests start read), removed when the run ends, so test files
 * need no cleanup of their own and a run leaves nothing in the machine's /tmp. Workers inherit it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const directory = mkdtempSync(join(tmpdir(), "keyspread-test-"));
  process.env.TMPDIR = directory;
  return () => rmSync(directory, { recursive: true, force: true });
}

/**
 * Vitest global setup: the run's temporary files go under one directory of its own (TMPDIR, which
 * os.tmpdir() and the CLI children the tests start read), removed when the run ends, so test files
 * need no cleanup of their own and a run leaves nothing in the machine's /tmp. Workers inherit it.
 * Every project runs the global setups again: the first makes the directory, the others keep it
 * (nested directories would lengthen Chromium's socket path past the 107 bytes Unix allows).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const MARK = "KEYSPREAD_TEST_TMPDIR";

export default function setup(): (() => void) | undefined {
  if (process.env[MARK] !== undefined && process.env[MARK] === process.env.TMPDIR) return undefined;
  const directory = mkdtempSync(join(tmpdir(), "keyspread-test-"));
  process.env.TMPDIR = directory;
  process.env[MARK] = directory;
  return () => {
    rmSync(directory, { recursive: true, force: true });
    delete process.env[MARK];
  };
}

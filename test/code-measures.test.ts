/**
 * Issue 42's limits on two habits that made the code hard to change: non-null assertions that hide
 * an optional value from the compiler, and tests that read English sentences where a finding or an
 * error has fields. `node scripts/code-measures.mjs --list` shows where each one is.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const run = spawnSync(process.execPath, ["scripts/code-measures.mjs"], {
  cwd: new URL("../", import.meta.url).pathname,
  encoding: "utf8",
});
if (run.status !== 0) throw new Error(`scripts/code-measures.mjs failed: ${run.stderr}`);
const measures = JSON.parse(run.stdout) as { nonNullAssertions: number; sentenceAssertions: number };

describe("code measures", () => {
  it("keeps non-index `!` assertions in production code under 40", () => {
    expect(measures.nonNullAssertions).toBeLessThan(40);
  });

  it("keeps sentence-regex assertions in tests under 20", () => {
    expect(measures.sentenceAssertions).toBeLessThan(20);
  });
});

/**
 * Golden files: a rendered report, plan or finding list kept in the repository, so a change to
 * what is printed shows as a diff to review (CockroachDB's data-driven tests, `-rewrite`).
 * `npm test -- --update-golden` (KEYSPREAD_UPDATE_GOLDEN=1) rewrites them instead of comparing.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

export const UPDATE_GOLDEN = process.env.KEYSPREAD_UPDATE_GOLDEN === "1";

/**
 * Compares `text` with the golden file `name` in the `golden/` folder beside the test file whose
 * URL is `testUrl` (pass `import.meta.url`); rewrites it under the update flag.
 */
export function expectGolden(testUrl: string, name: string, text: string): void {
  const file = fileURLToPath(new URL(`golden/${name}`, testUrl));
  const shown = relative(process.cwd(), file);
  if (UPDATE_GOLDEN) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  let expected: string;
  try {
    expected = readFileSync(file, "utf8");
  } catch {
    throw new Error(`golden file ${shown} is missing: run npm test -- --update-golden to write it`);
  }
  expect(text, `golden file ${shown} (npm test -- --update-golden rewrites it)`).toBe(expected);
}

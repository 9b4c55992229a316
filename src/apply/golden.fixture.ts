/**
 * Golden files for the printed plans: the provider and gcloud cannot run here, so a change to what
 * is printed shows as a diff to review. KEYSPREAD_UPDATE_GOLDEN=1 rewrites them.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { expect } from "vitest";

const DIRECTORY = new URL("./golden/", import.meta.url);

export function expectGolden(name: string, text: string): void {
  const file = new URL(name, DIRECTORY);
  if (process.env.KEYSPREAD_UPDATE_GOLDEN === "1") writeFileSync(file, text);
  expect(text, `golden file src/apply/golden/${name} (KEYSPREAD_UPDATE_GOLDEN=1 rewrites it)`).toBe(
    readFileSync(file, "utf8"),
  );
}

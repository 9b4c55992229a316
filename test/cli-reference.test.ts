/** docs/cli.md is the built bin's help, command by command: an out-of-date page fails here. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error a plain ESM script without types
import { CLI_PAGE, cliReference } from "../scripts/cli-reference.mjs";

describe("docs/cli.md", () => {
  it("matches every command's --help (regenerate: node scripts/cli-reference.mjs --write)", () => {
    expect(readFileSync(CLI_PAGE, "utf8")).toBe(cliReference());
  }, 300_000);
});

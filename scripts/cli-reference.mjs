#!/usr/bin/env node
/**
 * docs/cli.md, generated from the command definitions: every command's and subcommand's `--help`
 * of the built bin, walked from `keyspread --help`. `node scripts/cli-reference.mjs --write`
 * rewrites the page; test/cli-reference.test.ts fails when it is out of date.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
export const CLI_PAGE = fileURLToPath(new URL("../docs/cli.md", import.meta.url));

const help = (path) =>
  execFileSync("node", [BIN, ...path, "--help"], {
    cwd: ROOT,
    encoding: "utf8",
    // Commander wraps help at the terminal's width; without one, at 80 columns.
    env: { ...process.env, COLUMNS: "100", NO_COLOR: "1" },
  });

/** The subcommand names a help text lists under "Commands:" (without `help`). */
function subcommands(text) {
  const section = text.split(/^Commands:\n/m)[1];
  if (!section) return [];
  return section
    .split("\n")
    .map((line) => /^ {2}([a-z][\w-]*)/.exec(line)?.[1])
    .filter((name) => name !== undefined && name !== "help");
}

function sections(path) {
  const text = help(path);
  const here =
    path.length === 0 ? [] : [`## keyspread ${path.join(" ")}\n\n\`\`\`text\n${text.trimEnd()}\n\`\`\`\n`];
  return [...here, ...subcommands(text).flatMap((name) => sections([...path, name]))];
}

export function cliReference() {
  const top = help([]);
  return [
    "# keyspread command reference",
    "",
    "Generated from the command definitions by `node scripts/cli-reference.mjs --write` (a test fails when",
    "this page is out of date). Each command's own `--help` prints the same.",
    "",
    "```text",
    top.trimEnd(),
    "```",
    "",
    ...sections([]),
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const page = cliReference();
  if (process.argv.includes("--write")) writeFileSync(CLI_PAGE, page);
  else process.stdout.write(page);
}

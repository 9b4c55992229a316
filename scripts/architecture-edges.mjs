#!/usr/bin/env node
/**
 * The folders of src/ and the import directions between them, read from the code: every
 * `import`/`export … from` and every `import("…")` of a relative path in the files the package
 * ships (tests, test suites and fixtures left out). docs/architecture.md lists the same, and
 * test/architecture.test.ts fails when the two drift. `--write` (`npm run docs`) rewrites the
 * page's generated parts: the layers, the import directions, and the folder table's rows (each
 * folder's description is kept; a new folder needs one, written in the table by hand). `--check`
 * exits 1 when the page is not what `--write` would write. Without a flag it prints:
 *
 *   folders: src src/access-log …    every folder holding TypeScript, src/ itself included
 *   src/a → src/b                    one line per direction, sorted
 *   layer 7: src/cli src/entry       top down; layer 0 imports no other folder, layer n only below n
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const src = resolve(dirname(new URL(import.meta.url).pathname), "../src");
const TEST_FILE = /\.(test|testsuite|fixture)\.ts$/;
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g;

const walk = (directory) =>
  readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(directory, entry.name)) : [join(directory, entry.name)],
  );
/** `src`, `src/keys`, `src/viz/input`: a file's folder as the docs name it. */
const folderOf = (file) => join("src", relative(src, dirname(file)));

const sources = walk(src).filter((file) => file.endsWith(".ts") && !TEST_FILE.test(file));
const folders = [
  ...new Set(
    walk(src)
      .filter((file) => file.endsWith(".ts"))
      .map(folderOf),
  ),
].sort();
const edges = new Map(folders.map((folder) => [folder, new Set()]));
for (const file of sources) {
  for (const [, specifier] of readFileSync(file, "utf8").matchAll(RELATIVE_IMPORT)) {
    const target = folderOf(resolve(dirname(file), specifier));
    if (target !== folderOf(file)) edges.get(folderOf(file)).add(target);
  }
}

/** Layer of a folder: 0 when it imports no other folder, else one above the highest it imports. */
const layers = new Map();
const layerOf = (folder, path = []) => {
  if (layers.has(folder)) return layers.get(folder);
  if (path.includes(folder))
    throw new Error(`import cycle between folders: ${[...path, folder].join(" → ")}`);
  const layer =
    Math.max(-1, ...[...edges.get(folder)].map((target) => layerOf(target, [...path, folder]))) + 1;
  layers.set(folder, layer);
  return layer;
};
for (const folder of folders) layerOf(folder);

const lines = [`folders: ${folders.join(" ")}`];
for (const folder of folders)
  for (const target of [...edges.get(folder)].sort()) lines.push(`${folder} → ${target}`);
for (let layer = Math.max(...layers.values()); layer >= 0; layer--) {
  lines.push(`layer ${layer}: ${folders.filter((folder) => layers.get(folder) === layer).join(" ")}`);
}

const PAGE = resolve(src, "../docs/architecture.md");

/** `page` with its generated parts made from the code. */
function rendered(page) {
  const section = (heading, edit) => {
    const start = page.indexOf(`\n## ${heading}\n`);
    if (start < 0) throw new Error(`docs/architecture.md has no "## ${heading}" section`);
    const end = page.indexOf("\n## ", start + 1);
    const stop = end < 0 ? page.length : end;
    page = page.slice(0, start) + edit(page.slice(start, stop)) + page.slice(stop);
  };
  /** The section's first code block, replaced by `body`. */
  const codeBlock = (body) => (text) => {
    const open = text.indexOf("\n```\n");
    const close = text.indexOf("\n```\n", open + 1);
    return `${text.slice(0, open)}\n\`\`\`\n${body.join("\n")}${text.slice(close)}`;
  };
  section("Layers", codeBlock(lines.filter((line) => line.startsWith("layer "))));
  section("Import directions", codeBlock(lines.filter((line) => line.includes(" → "))));
  section("Folders", (text) => {
    const rows = text.split("\n").filter((line) => /^\| `src[^`]*` \|/.test(line));
    const described = new Map(rows.map((row) => [/^\| `(src[^`]*)` \|/.exec(row)[1], row]));
    const missing = folders.filter((folder) => !described.has(folder));
    if (missing.length > 0) {
      throw new Error(
        `describe ${missing.join(", ")} in docs/architecture.md's Folders table (a row: | \`folder\` | what it holds |)`,
      );
    }
    const first = text.indexOf(rows[0]);
    const last = text.indexOf(rows.at(-1)) + rows.at(-1).length;
    return (
      text.slice(0, first) + folders.map((folder) => described.get(folder)).join("\n") + text.slice(last)
    );
  });
  return page;
}

const flag = process.argv[2];
if (flag === "--write" || flag === "--check") {
  const page = readFileSync(PAGE, "utf8");
  const next = rendered(page);
  if (flag === "--write") writeFileSync(PAGE, next);
  else if (next !== page) {
    process.stderr.write("docs/architecture.md is out of date: npm run docs\n");
    process.exit(1);
  }
} else console.log(lines.join("\n"));

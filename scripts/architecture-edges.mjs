#!/usr/bin/env node
/**
 * The folders of src/ and the import directions between them, read from the code: every
 * `import`/`export … from` and every `import("…")` of a relative path in the files the package
 * ships (tests, test suites and fixtures left out). docs/architecture.md lists the same, and
 * test/architecture.test.ts fails when the two drift. Prints:
 *
 *   folders: src src/access-log …    every folder holding TypeScript, src/ itself included
 *   src/a → src/b                    one line per direction, sorted
 *   layer 7: src/cli src/entry       top down; layer 0 imports no other folder, layer n only below n
 */
import { readdirSync, readFileSync } from "node:fs";
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

console.log(`folders: ${folders.join(" ")}`);
for (const folder of folders)
  for (const target of [...edges.get(folder)].sort()) console.log(`${folder} → ${target}`);
for (let layer = Math.max(...layers.values()); layer >= 0; layer--) {
  console.log(`layer ${layer}: ${folders.filter((folder) => layers.get(folder) === layer).join(" ")}`);
}

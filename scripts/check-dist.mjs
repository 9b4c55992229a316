#!/usr/bin/env node
/**
 * Run after every build: dist/ must hold only what the package ships. Fails (exit 1, naming the
 * files) when a test, test suite or fixture was emitted, or when a module is reachable from no
 * entry point (package.json `exports` and `bin`) — the sign of a test helper under another name.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
const dist = join(root, "dist");
const TEST_FILE = /\.(test|testsuite|fixture)\.|(^|\/)fixtures?\//;
/** Relative specifiers of static imports, re-exports, `import type`, and dynamic imports of a string literal. */
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g;

const walk = (directory) =>
  readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(directory, entry.name)) : [join(directory, entry.name)],
  );

/** A module as a path without its extension: `dist/keys/schema` stands for .js, .d.ts and their maps. */
const moduleOf = (file) => file.replace(/(\.d)?\.(js|ts)(\.map)?$/, "");

if (!existsSync(dist)) {
  console.error("check-dist: dist/ does not exist; run `npm run build`");
  process.exit(1);
}
const files = walk(dist).map((file) => relative(root, file));
const problems = files
  .filter((file) => TEST_FILE.test(file))
  .map((file) => `${file}: a test file or fixture`);

const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const entries = [
  ...Object.values(packageJson.exports).flatMap((conditions) => Object.values(conditions)),
  ...Object.values(packageJson.bin),
].map((path) => moduleOf(join(root, path)));
const reachable = new Set();
const pending = [...entries];
while (pending.length > 0) {
  const module = pending.pop();
  if (reachable.has(module)) continue;
  reachable.add(module);
  for (const file of [`${module}.js`, `${module}.d.ts`].filter(existsSync)) {
    for (const [, specifier] of readFileSync(file, "utf8").matchAll(RELATIVE_IMPORT)) {
      pending.push(moduleOf(resolve(dirname(file), specifier)));
    }
  }
}
problems.push(
  ...files
    .filter((file) => !TEST_FILE.test(file) && !reachable.has(moduleOf(join(root, file))))
    .map((file) => `${file}: reached from no entry point (package.json exports or bin)`),
);
if (problems.length > 0) {
  console.error(`check-dist: dist/ holds what the package must not ship:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}

#!/usr/bin/env node
// Two measures of issue 42, printed as JSON (test/code-measures.test.ts holds their limits):
// - nonNullAssertions: `x!` in production code under src/ (tests, *.testsuite.ts and *.fixture.ts
//   excluded), except `x[i]!`, which the compiler's noUncheckedIndexedAccess asks for;
// - sentenceAssertions: test assertions `toMatch(/…/)` / `toThrow(/…/)` whose pattern holds two
//   words in a row, i.e. a test that reads English where it could read a field.
// `--list` prints where each one is.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import ts from "typescript";

const root = new URL("../", import.meta.url).pathname;
const tracked = (pattern) =>
  execFileSync("git", ["ls-files", pattern], { cwd: root, encoding: "utf8" }).split("\n").filter(Boolean);

const nonNull = [];
for (const file of tracked("src/**.ts")) {
  if (/\.test\.ts$|\.testsuite\.ts$|\.fixture\.ts$/.test(file)) continue;
  const source = ts.createSourceFile(file, readFileSync(root + file, "utf8"), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isNonNullExpression(node) && !ts.isElementAccessExpression(node.expression)) {
      nonNull.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

const sentences = [];
const assertion = /\.(?:toMatch|toThrow|toThrowError)\(\s*\/((?:\\.|[^/\n])+)\/[a-z]*\s*,?\s*\)/g;
for (const file of tracked("*.test.ts")) {
  const text = readFileSync(root + file, "utf8");
  for (const match of text.matchAll(assertion)) {
    const pattern = match[1].replace(/\\s[+*]?/g, " ");
    if (/[A-Za-z]{2,} +[A-Za-z]{2,}/.test(pattern)) {
      sentences.push(`${file}:${text.slice(0, match.index).split("\n").length}`);
    }
  }
}

if (process.argv.includes("--list")) {
  for (const where of nonNull) console.log(`non-null ${where}`);
  for (const where of sentences) console.log(`sentence ${where}`);
}
console.log(JSON.stringify({ nonNullAssertions: nonNull.length, sentenceAssertions: sentences.length }));

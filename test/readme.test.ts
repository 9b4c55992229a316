/**
 * The front page stays a front page: its two commands are the ones CI and the scripts run, it
 * stays short, and every dependency package.json declares is justified in docs/dependencies.md.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** The lines of the README's `sh` blocks. */
function shellLines(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap(([, body]) =>
    body!.trimEnd().split("\n"),
  );
}

describe("README.md", () => {
  const readme = read("README.md");

  it("gives the test command CI runs, byte for byte, and the main job the scripts define", () => {
    const ci = read(".ci/run").trimEnd().split("\n").at(-1)!;
    expect(ci).toBe("npm ci && npm test");
    const commands = shellLines(readme).map((line) => line.replace(/\s+#.*$/, ""));
    expect(commands).toContain(ci);
    expect(commands).toContain("npm ci && npm run lab");
    const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
    expect(scripts.test).toBeDefined();
    expect(scripts.lab).toMatch(/ lab$/);
  });

  it("is a front page of about 10 KB with no manual-length lines", () => {
    expect(Buffer.byteLength(readme)).toBeLessThan(12_000);
    expect(Math.max(...readme.split("\n").map((line) => line.length))).toBeLessThanOrEqual(240);
  });

  it("links the page that justifies every dependency, and that page names each one", () => {
    expect(readme).toContain("](docs/dependencies.md)");
    const manifest = JSON.parse(read("package.json")) as Record<string, Record<string, string>>;
    const names = [
      ...Object.keys(manifest.dependencies!),
      ...Object.keys(manifest.devDependencies!),
      ...Object.keys(manifest.peerDependencies!),
    ];
    const justified = read("docs/dependencies.md");
    expect(names.filter((name) => !justified.includes(`\`${name}\``) && !justified.includes(name))).toEqual(
      [],
    );
  });
});

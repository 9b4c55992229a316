/**
 * docs/architecture.md against the code: its folder table, its list of import directions and its
 * layers must be what `scripts/architecture-edges.mjs` reads from src/ (every folder, every
 * folder → folder import). When this fails, `npm run docs` rewrites the page's generated parts.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../", import.meta.url).pathname;

const script = spawnSync(process.execPath, ["scripts/architecture-edges.mjs"], {
  cwd: ROOT,
  encoding: "utf8",
});
if (script.status !== 0) throw new Error(`scripts/architecture-edges.mjs failed: ${script.stderr}`);
const fromCode = script.stdout.split("\n").filter(Boolean);
const page = readFileSync(new URL("docs/architecture.md", `file://${ROOT}`), "utf8");

/** The lines of the page's section `heading` (up to the next `## `). */
function section(heading: string): string[] {
  const start = page.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/architecture.md has no "## ${heading}" section`);
  const end = page.indexOf("\n## ", start + 1);
  return page.slice(start, end < 0 ? undefined : end).split("\n");
}

describe("docs/architecture.md", () => {
  it("describes every folder under src/, and no other", () => {
    const folders = fromCode
      .find((line) => line.startsWith("folders: "))!
      .slice("folders: ".length)
      .split(" ");
    const described = section("Folders")
      .map((line) => /^\| `(src[^`]*)` \|/.exec(line)?.[1])
      .filter((folder) => folder !== undefined);
    expect(described).toEqual(folders);
  });

  it("lists every import direction between folders, and no other", () => {
    const edges = fromCode.filter((line) => line.includes(" → "));
    expect(section("Import directions").filter((line) => /^src\S* → src\S*$/.test(line))).toEqual(edges);
  });

  it("draws the layers the imports make", () => {
    const layers = fromCode.filter((line) => line.startsWith("layer "));
    expect(section("Layers").filter((line) => line.startsWith("layer "))).toEqual(layers);
  });

  it("is what `npm run docs` writes", () => {
    const check = spawnSync(process.execPath, ["scripts/architecture-edges.mjs", "--check"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    expect({ status: check.status, stderr: check.stderr }).toEqual({ status: 0, stderr: "" });
  });
});

describe("the pure simulator", () => {
  it("imports nothing of the heatmaps (src/viz)", () => {
    const fromSim = fromCode.filter((line) => /^src\/sim(\/\S*)? → /.test(line));
    expect(fromSim.length).toBeGreaterThan(0);
    expect(fromSim.filter((line) => / → src\/viz(\/|$)/.test(line))).toEqual([]);
  });
});

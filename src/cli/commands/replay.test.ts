import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// End-to-end on the built bin, with the example log: one hour of time-first posts, a 0.025 % sample,
// copied as a user would (the package ships the log compressed).
const copied = mkdtempSync(join(tmpdir(), "keyspread-replay-example-"));
const copy = spawnSync("node", ["dist/cli/main.js", "examples", "replay", "--to", copied], {
  encoding: "utf8",
});
if (copy.status !== 0) throw new Error(`keyspread examples replay: ${copy.stderr}`);
const example = (file: string) => join(copied, "replay", file);
const replay = (args: string[]) => {
  const result = spawnSync(
    "node",
    [
      "dist/cli/main.js",
      "replay",
      "--log",
      example("posts-access.csv"),
      "--schema",
      example("current.yaml"),
      "--nodes",
      "6",
      "--sample-rate",
      "0.00025",
      ...args,
    ],
    { encoding: "utf8" },
  );
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
};

describe("keyspread replay", () => {
  it("replays the recorded traffic under each candidate and says which to move to, with heatmaps side by side", () => {
    const out = mkdtempSync(join(tmpdir(), "keyspread-replay-"));
    const run = replay([
      "--candidate",
      example("salt-32-by-ts.yaml"),
      "--candidate",
      example("author-first.yaml"),
      "--out",
      out,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("18,180 records over 1h");
    // The current key misses the guidance on a warm cluster and no node count fixes it; a candidate meets it.
    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
    const [current, ...candidates] = results.designs;
    expect(current).toMatchObject({
      design: "post-ts-author",
      summary: { guidance: { meets: false, nodesNeeded: { total: null } }, steadyState: { warmedUp: true } },
    });
    expect(results.verdict).toMatchObject({ current: "post-ts-author" });
    const recommended = candidates.find(
      (design: { design: string }) => design.design === results.verdict.recommended,
    );
    expect(recommended?.summary.guidance.meets).toBe(true);
    for (const file of [
      "results.json",
      "comparison.txt",
      "heatmaps.html",
      "heatmap-post-ts-author.png",
      "heatmap-salt-32-by-ts.png",
    ]) {
      expect(existsSync(join(out, file)), file).toBe(true);
    }
    const page = readFileSync(join(out, "heatmaps.html"), "utf8");
    expect(page).toContain("Hottest node CPU over time (before and after)");
    // The difference view: a candidate minus the current key, below zero where it runs cooler.
    expect(page).toContain("Hottest node CPU, candidate minus current key");
    expect(page).toMatch(/<text[^>]*>-\d+<\/text>/);
  }, 120_000);

  it("prints JSON with each design's summary and the verdict", () => {
    const run = replay(["--candidate", example("salt-32-by-ts.yaml"), "--json"]);
    expect(run.code, run.stderr).toBe(0);
    const printed = JSON.parse(run.stdout);
    expect(printed.designs.map((design: { name: string }) => design.name)).toEqual([
      "post-ts-author",
      "salt-32-by-ts",
    ]);
    expect(printed.designs[1].summary.guidance.meets).toBe(true);
    expect(printed.verdict.recommended).toBe("salt-32-by-ts");
    expect(printed.records).toBe(18_180);
  }, 120_000);

  it("counts and shows the rows the current schema cannot read, and refuses bad options by name", () => {
    const dir = mkdtempSync(join(tmpdir(), "keyspread-replay-bad-"));
    const log = join(dir, "log.csv");
    writeFileSync(
      log,
      "ts,key,op,bytes\n1796032800000,post_1796032800000_ua1,write,100\n1796032801000,legacy#row,write,100\n",
    );
    const run = spawnSync(
      "node",
      [
        "dist/cli/main.js",
        "replay",
        "--log",
        log,
        "--schema",
        example("current.yaml"),
        "--candidate",
        example("author-first.yaml"),
        "--nodes",
        "3",
      ],
      { encoding: "utf8" },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("1 records the current schema cannot read were left out of every design");
    expect(run.stdout).toContain("legacy#row");
    const bad = replay(["--candidate", example("author-first.yaml"), "--sample-rate", "2"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--sample-rate");
    expect(replay([]).stderr).toContain("--candidate: give at least one candidate key schema");
  }, 120_000);
});

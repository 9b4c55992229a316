import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { postKeys } from "../advise/fixtures.testsuite.js";

// End-to-end: the built bin (the test script builds before vitest runs).
function keyspread(args: string[], input?: string) {
  const result = spawnSync("node", ["dist/cli/main.js", ...args], { encoding: "utf8", input });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const dir = mkdtempSync(join(tmpdir(), "keyspread-advise-cli-"));
const keysFile = join(dir, "posts.txt");
writeFileSync(keysFile, `${postKeys(400).join("\n")}\n`);

describe("keyspread advise", () => {
  it("--scenario --json prints one JSON object whose recommended member has the schema and scores", () => {
    const { code, stdout, stderr } = keyspread([
      "advise",
      "--scenario",
      "examples/timestamp-first.yaml",
      "--duration",
      "5m",
      "--buckets",
      "12",
      "--no-batching",
      "--json",
    ]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const advice = JSON.parse(stdout);
    expect(advice.recommended.name).toBe("promote-author");
    expect(advice.recommended.schema.segments.map((s: { field?: string }) => s.field ?? "literal")).toEqual([
      "literal",
      "author",
      "ts",
    ]);
    expect(advice.recommended.scores.hottestCpu).toBeLessThanOrEqual(0.9);
    expect(advice.candidates.map((c: { name: string }) => c.name)).toEqual([
      "as-is",
      "reverse-ts",
      "promote-author",
      "salt-12",
    ]);
  });

  it("--keys infers the key, and --out writes the reports and a schema the keys command reads", () => {
    const out = join(dir, "report");
    const { code, stdout, stderr } = keyspread([
      "advise",
      "--keys",
      keysFile,
      "--rates",
      "writes=20000,range-1d=5",
      "--nodes",
      "6",
      "--entities",
      "200000",
      "--duration",
      "5m",
      "--buckets",
      "12",
      "--no-batching",
      "--out",
      out,
    ]);
    expect(code).toBe(0);
    expect(stdout).toContain("**Recommended: promote-id");
    expect(stdout).toContain("Writes are sequential: ts (timestamp) leads the key");
    expect(stderr).toMatch(/^wrote .*advice\.json, .*recommended-schema\.yaml, .*report\.md, .*report\.html/);
    for (const file of [
      "advice.json",
      "report.md",
      "report.html",
      "recommended-schema.yaml",
      "heatmaps.html",
    ])
      expect(existsSync(join(out, file)), file).toBe(true);
    const encoded = keyspread(
      ["keys", "encode", "--schema", join(out, "recommended-schema.yaml")],
      '{"id":"u42","ts":1764000000000}\n',
    );
    expect(encoded.stdout).toBe("post_u42_1764000000000\n");
  });

  it("names what is missing", () => {
    const neither = keyspread(["advise"]);
    expect(neither.code).toBe(1);
    expect(neither.stderr).toBe("keyspread: give exactly one of --scenario FILE or --keys FILE\n");
    const noRates = keyspread(["advise", "--keys", keysFile, "--nodes", "4"]);
    expect(noRates.stderr).toMatch(/--keys needs --rates/);
    const badRates = keyspread(["advise", "--keys", keysFile, "--nodes", "4", "--rates", "reads=5"]);
    expect(badRates.stderr).toMatch(/--rates: unknown "reads"/);
  });
});

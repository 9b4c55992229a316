// `keyspread bigquery` and `table create --row-key-schema` on the built bin.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const runWith = (env: NodeJS.ProcessEnv, ...args: string[]) => {
  const result = spawnSync("node", ["dist/cli/main.js", ...args], {
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
};
const run = (...args: string[]) => runWith({}, ...args);

const GOLDEN = "src/bigquery/fixtures/fleet";

describe("keyspread bigquery", () => {
  it("writes the fleet's files, the same as the golden ones, and lists what it wrote", () => {
    const out = join(mkdtempSync(join(tmpdir(), "keyspread-bigquery-")), "fleet");
    const result = run(
      "bigquery",
      "--schema",
      "examples/schemas/fleet.yaml",
      "--table",
      "acme-prod/metrics/fleet",
      "--dataset",
      "analytics",
      "--family",
      "m",
      "--region",
      "europe-west1",
      "--cell",
      "value:DOUBLE",
      "--out",
      out,
    );
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as { files: string[]; refused: Record<string, string> };
    expect(summary.refused).toEqual({});
    expect(summary.files).toContain("view.sql");
    for (const file of summary.files) {
      expect(readFileSync(join(out, file), "utf8"), file).toBe(readFileSync(join(GOLDEN, file), "utf8"));
    }
  });

  it("refuses a layout the views cannot decode, naming why, and a malformed table path", () => {
    const dir = mkdtempSync(join(tmpdir(), "keyspread-bigquery-"));
    const schema = join(dir, "sharded.yaml");
    writeFileSync(
      schema,
      "version: 1\nname: counters\nlayout: text\nsegments:\n  - field: id\n    codec: { type: string }\nwriteShards: { count: 4 }\n",
    );
    const sharded = run("bigquery", "--schema", schema, "--table", "p/i/t", "--dataset", "d", "--out", dir);
    expect(sharded.code).not.toBe(0);
    expect(sharded.stderr).toMatch(/writeShards/);
    const badPath = run("bigquery", "--schema", schema, "--table", "p/t", "--dataset", "d", "--out", dir);
    expect(badPath.code).not.toBe(0);
    expect(badPath.stderr).toMatch(/PROJECT\/INSTANCE\/TABLE/);
  });
});

describe("table create --row-key-schema", () => {
  it("applies to Bigtable only, and refuses a key that does not fit with the reasons", () => {
    const embedded = run("table", "create", "--schema", "examples/schemas/fleet.yaml", "--row-key-schema");
    expect(embedded.code).not.toBe(0);
    expect(
      JSON.parse(
        runWith(
          { KEYSPREAD_ERRORS: "json" },
          "table",
          "create",
          "--schema",
          "examples/schemas/fleet.yaml",
          "--row-key-schema",
        ).stderr,
      ),
    ).toMatchObject({ flag: "--row-key-schema", appliesTo: "--store bigtable" });
    const game = runWith(
      { KEYSPREAD_ERRORS: "json" },
      "table",
      "create",
      "--schema",
      "examples/schemas/game-studio-md5.yaml",
      "--store",
      "bigtable",
      "--row-key-schema",
    );
    expect(game.code).not.toBe(0);
    expect(JSON.parse(game.stderr).reasons).toContainEqual(
      expect.objectContaining({ problem: "raw-string" }),
    );
  });
});

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectGolden } from "../../../test/golden.js";
import { counterKeys, postKeys } from "../../advise/infer/fixtures.testsuite.js";
import { checkInstanceId, InstancePlanError } from "../../apply/bigtable-ids.js";

// End-to-end: the built bin (the test script builds before vitest runs).
function keyspread(args: string[], input?: string) {
  const result = spawnSync("node", ["dist/cli/main.js", ...args], { encoding: "utf8", input });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const dir = mkdtempSync(join(tmpdir(), "keyspread-advise-cli-"));
const keysFile = join(dir, "posts.txt");
writeFileSync(keysFile, `${postKeys(400).join("\n")}\n`);

describe("keyspread advise", () => {
  it("a scenario --json prints one JSON object whose recommended member has the schema and scores; --out writes the golden report", () => {
    const out = join(dir, "timestamp-first");
    const { code, stdout, stderr } = keyspread([
      "advise",
      "examples/timestamp-first.yaml",
      "--duration",
      "10m",
      "--buckets",
      "12",
      "--no-batching",
      "--json",
      "--out",
      out,
    ]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expectGolden(import.meta.url, "timestamp-first-report.md", readFileSync(join(out, "report.md"), "utf8"));
    const advice = JSON.parse(stdout);
    expect(advice.recommended.name).toBe("promote-author");
    expect(advice.recommended.schema.segments.map((s: { field?: string }) => s.field ?? "literal")).toEqual([
      "literal",
      "author",
      "ts",
    ]);
    expect(advice.recommended.scores.hottestCpu).toBeLessThanOrEqual(0.9);
    // The scenario's designs (one of them the generated promote-author), then the advisor's own.
    expect(advice.candidates.map((c: { name: string }) => c.name)).toEqual([
      "as-is",
      "as-is-on-12-nodes",
      "salt-32-by-ts",
      "promote-author",
      "reverse-ts",
      "salt-12-by-ts+author",
    ]);
  });

  it("--keys infers the key, and --out writes the reports and a schema the keys command reads", () => {
    const out = join(dir, "report");
    const { code, stdout, stderr } = keyspread([
      "advise",
      "--keys",
      keysFile,
      "--rates",
      "writes=20000,get=100",
      "--nodes",
      "6",
      "--entities",
      "200000",
      "--buckets",
      "12",
      "--no-batching",
      "--out",
      out,
    ]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    // The report is in the files; stdout is the verdict and the paths.
    expect(JSON.parse(readFileSync(join(out, "advice.json"), "utf8")).headline).toMatchObject({
      sizedBy: "cpu",
      plannedNodes: 6,
      recommended: { design: "promote-id" },
    });
    // The verdict, then the paths written.
    expectGolden(import.meta.url, "posts-keys-verdict.txt", stdout.replaceAll(out, "<out>"));
    const report = readFileSync(join(out, "report.md"), "utf8");
    expect(report).toContain("Writes are sequential: ts (epoch ms) leads the key");
    for (const file of [
      "advice.json",
      "report.md",
      "report.html",
      "recommended-schema.yaml",
      "heatmaps.html",
      "main.tf",
      "gcloud.sh",
    ])
      expect(existsSync(join(out, file)), file).toBe(true);
    // The recommended instance to apply, with the nodes the verdict gives it by Google's targets.
    const { headline } = JSON.parse(readFileSync(join(out, "advice.json"), "utf8"));
    expect(readFileSync(join(out, "main.tf"), "utf8")).toMatch(
      new RegExp(`^ {4}num_nodes += ${headline.recommended.nodes}$`, "m"),
    );
    expect(statSync(join(out, "gcloud.sh")).mode & 0o111).not.toBe(0);
    const encoded = keyspread(
      ["keys", "encode", "--schema", join(out, "recommended-schema.yaml")],
      '{"id":"u42","ts":1764000000000}\n',
    );
    expect(encoded.stdout).toBe("post_u42_1764000000000\n");
    // Inference, eight simulations, heatmaps and the keys command: over a minute on a loaded machine.
  }, 180_000);

  it("--emit prints the recommended instance instead of the report; a name Bigtable rejects fails naming it", () => {
    const terraform = keyspread([
      "advise",
      "examples/timestamp-first.yaml",
      "--duration",
      "5m",
      "--buckets",
      "12",
      "--no-batching",
      "--instance-id",
      "posts-prod",
      "--zone",
      "europe-west1-c",
      "--emit",
      "terraform",
    ]);
    expect(terraform.stderr).toBe("");
    expect(terraform.code).toBe(0);
    expect(terraform.stdout).toMatch(/^resource "google_bigtable_instance" "instance" \{$/m);
    expect(terraform.stdout).toMatch(/^ {2}name += "posts-prod"$/m);
    expect(terraform.stdout).toMatch(/^ {4}zone += "europe-west1-c"$/m);
    const refused = keyspread(["advise", "examples/timestamp-first.yaml", "--instance-id", "Posts"]);
    expect(refused.code).toBe(1);
    const instanceIdError = (() => {
      try {
        return checkInstanceId("--instance-id", "Posts");
      } catch (error) {
        return error;
      }
    })();
    expect(instanceIdError).toBeInstanceOf(InstancePlanError);
    expect(instanceIdError).toMatchObject({ field: "--instance-id" });
    expect(refused.stderr).toBe(
      `error: option '--instance-id <id>' argument 'Posts' is invalid. ${(instanceIdError as Error).message}\n(add --help for the command's options)\n`,
    );
    const both = keyspread(["advise", "examples/timestamp-first.yaml", "--emit", "gcloud", "--json"]);
    expect(both).toMatchObject({
      code: 1,
      stderr: "keyspread: give one of --emit and --json: both print to stdout\n",
    });
  });

  it("exits 2 when nothing is recommended, and says why; --help documents the exit codes", () => {
    const counter = join(dir, "txn.txt");
    writeFileSync(counter, `${counterKeys(400).join("\n")}\n`);
    const { code, stdout } = keyspread([
      "advise",
      "--keys",
      counter,
      "--rates",
      // The range read rules out the counter's reversed digits (no key range holds the newest rows).
      "writes=20000,range-1h=5",
      "--nodes",
      "6",
      "--duration",
      "10m",
      "--buckets",
      "2",
      "--no-batching",
    ]);
    expect(code).toBe(2);
    // No recommendation, and why each candidate loses; storage does not size this cluster, so the
    // two buckets must cover every planned node.
    expectGolden(import.meta.url, "counter-no-recommendation.md", stdout);
    // The help ends with the exit codes.
    expectGolden(import.meta.url, "advise-help.txt", keyspread(["advise", "--help"]).stdout);
  });

  it("names what is missing", () => {
    const neither = keyspread(["advise"]);
    expect(neither.code).toBe(1);
    expect(neither.stderr).toBe("keyspread: give exactly one of a scenario FILE or --keys FILE\n");
    const noRates = keyspread(["advise", "--keys", keysFile, "--nodes", "4"]);
    expect(noRates.stderr).toBe(
      "keyspread: --keys needs --rates, e.g. --rates writes=20000,latest-10=500,range-1d=5\n",
    );
    const badRates = keyspread(["advise", "--keys", keysFile, "--nodes", "4", "--rates", "reads=5"]);
    expect(badRates.stderr).toMatch(/--rates: unknown "reads"/);
  });
});

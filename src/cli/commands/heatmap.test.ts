import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { expectGolden } from "../../../test/golden.js";
import { syntheticAccess } from "../../viz/input/synthetic-access.js";

// End-to-end: the built bin (the test script builds before vitest runs).
function keyspread(args: string[]) {
  const result = spawnSync("node", ["dist/cli/main.js", "heatmap", ...args], { encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const dir = mkdtempSync(join(tmpdir(), "keyspread-heatmap-cli-"));
const log = join(dir, "access.jsonl");
writeFileSync(
  log,
  [...syntheticAccess("sudden", { records: 20_000 })]
    .map((r) =>
      JSON.stringify({ ts: new Date(r.tsMs).toISOString(), key: r.key.toString(), op: r.op, bytes: r.bytes }),
    )
    .join("\n"),
);

const healthyLog = join(dir, "healthy.jsonl");
writeFileSync(
  healthyLog,
  [...syntheticAccess("healthy", { records: 20_000 })]
    .map((r) =>
      JSON.stringify({ ts: new Date(r.tsMs).toISOString(), key: r.key.toString(), op: r.op, bytes: r.bytes }),
    )
    .join("\n"),
);

describe("keyspread heatmap", () => {
  it("puts two logs side by side on one colour scale, and names each log's patterns", () => {
    const out = join(dir, "compare.html");
    // 200 rows, as below: at 1000 the sudden range splits into runs too narrow to carry its rule's share.
    const run = keyspread(["--from", log, "--from", healthyLog, "--out", out, "--rows", "200"]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    // Each log's panel, and under it that log's findings: the sudden range under access.jsonl.
    expectGolden(import.meta.url, "heatmap-two-logs.txt", run.stdout.replaceAll(dir, "<dir>"));
    const page = readFileSync(out, "utf8");
    expect(page).toContain("access.jsonl vs healthy.jsonl");
    expect(keyspread(["--from", log, "--from", healthyLog, "--out", join(dir, "two.png")])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("2 logs side by side need an .html page"),
    });
  });

  it("writes a PNG and prints the pattern in words, quietly off a TTY", () => {
    const out = join(dir, "heat.png");
    const run = keyspread(["--from", log, "--out", out, "--rows", "200"]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expectGolden(import.meta.url, "heatmap-sudden.txt", run.stdout.replaceAll(dir, "<dir>"));
    expect(PNG.sync.read(readFileSync(out)).width).toBe(1000);
  });

  it("writes SVG and HTML by extension, and JSON lines on request", () => {
    const svg = keyspread([
      "--from",
      log,
      "--out",
      join(dir, "heat.svg"),
      "--metric",
      "writes",
      "--scale",
      "linear",
    ]);
    expect(svg.code).toBe(0);
    expect(readFileSync(join(dir, "heat.svg"), "utf8")).toContain("writes (rows written/s), linear scale");
    const html = keyspread(["--from", log, "--out", join(dir, "heat.html"), "--json", "--rows", "200"]);
    expect(html.code).toBe(0);
    const finding = JSON.parse(html.stdout.trim().split("\n")[0]!);
    // `keys` as the sentence names them; `start`/`end` exactly, in hex.
    expect(finding).toMatchObject({ kind: "sudden-hot-range", keys: expect.stringMatching(/^\[t14#/) });
    // The rule's numbers as data: the range's share of the load since its onset, and the thresholds.
    expect(finding.measures).toEqual({
      share: expect.closeTo(0.49, 2),
      thresholds: { minRatio: 5, minSustained: 0.7, minShare: 0.2 },
    });
    expect(finding.summary).toContain(`keys ${finding.keys}`);
    expect(Buffer.from(finding.start, "hex").toString()).toBe(
      finding.keys.slice(1, finding.keys.indexOf(",")),
    );
    expect(readFileSync(join(dir, "heat.html"), "utf8")).toContain('id="heatmap-data"');
  });

  it("fails clearly on bad input, naming the file, line and field", () => {
    const bad = join(dir, "bad.jsonl");
    writeFileSync(bad, '{"ts":1,"key":"a","op":"read"}\n{"ts":2,"key":"b","op":"upsert"}\n');
    expect(keyspread(["--from", bad, "--out", join(dir, "x.png")])).toMatchObject({
      code: 1,
      stderr: `keyspread: ${bad}:2: op "upsert": expected read, write or scan\n`,
    });
    expect(keyspread(["--from", log, "--out", join(dir, "x.jpg")]).stderr).toContain(
      "expected a file ending in .png, .svg or .html",
    );
    expect(keyspread(["--from", join(dir, "missing.jsonl"), "--out", join(dir, "x.png")]).stderr).toContain(
      "missing.jsonl: no such file",
    );
    expect(keyspread(["--from", log, "--out", join(dir, "x.png"), "--metric", "cpu"]).stderr).toContain(
      "node CPU comes from simulations",
    );
    expect(keyspread(["--from", log, "--out", join(dir, "x.png"), "--rows", "0"]).stderr).toContain(
      `argument '0' is invalid. "0" is not a whole number ≥ 1`,
    );
  });
});

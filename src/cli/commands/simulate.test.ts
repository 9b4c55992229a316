import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectGolden } from "../../../test/golden.js";

// End-to-end: the built bin (the test script builds before vitest runs).
function keyspread(args: string[]) {
  const result = spawnSync("node", ["dist/cli/main.js", "simulate", ...args], { encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const dir = mkdtempSync(join(tmpdir(), "keyspread-simulate-cli-"));
const scenario = join(dir, "small.yaml");
writeFileSync(
  scenario,
  `name: small
cluster: { nodes: 4 }
workload:
  rowBytes: 512
  groups:
    - { name: devices, entities: 5000, fields: { deviceID: "d{i:05}" }, writesPerS: 4000 }
  reads:
    - { name: latest-10, kind: latest, group: devices, limit: 10, perS: 100 }
x-key: &key
  version: 1
  name: device-ts
  layout: text
  segments:
    - { field: deviceID, codec: { type: string } }
    - { field: ts, codec: { type: timestamp, unit: ms, reverse: true } }
designs:
  - { name: unsalted, schema: *key }
  - { name: salted-8, schema: { <<: *key, name: salted, salt: { buckets: 8, fields: [deviceID, ts] } } }
`,
);

describe("keyspread simulate", () => {
  it("prints the comparison table, quietly off a TTY", () => {
    const run = keyspread([scenario, "--duration", "5m"]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    // The title, then a row per design (unsalted on 4 nodes at $2.60, salted-8 over 8 buckets).
    expectGolden(import.meta.url, "simulate-small.txt", run.stdout);
  });

  it("prints JSON summaries for one design and writes results and heatmaps with --out", () => {
    const out = join(dir, "out");
    const run = keyspread([scenario, "--design", "salted-8", "--duration", "3m", "--json", "--out", out]);
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout);
    expect(printed.designs.map((d: { design: string }) => d.design)).toEqual(["salted-8"]);
    expect(printed.designs[0].summary.reads[0].fanout).toBe(8);
    expect(printed.designs[0].summary.guidance.meets).toBe(true);
    expect(printed.designs[0].loadSteps).toBeUndefined();
    expect(printed.designs[0].timeline).toBeUndefined();
    const saved = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
    expect(saved.designs[0].summary).toEqual(printed.designs[0].summary);
    expect(existsSync(join(out, "heatmap-salted-8.png"))).toBe(true);
    expect(existsSync(join(out, "heatmaps.html"))).toBe(true);
  });

  it("adds the time series with --series, and ranges over the model's ends with --sensitivity", () => {
    const run = keyspread([
      scenario,
      "--design",
      "salted-8",
      "--duration",
      "3m",
      "--json",
      "--series",
      "--sensitivity",
    ]);
    expect(run.code).toBe(0);
    const [design] = JSON.parse(run.stdout).designs;
    expect(design.timeline).toHaveLength(3);
    expect(design.sensitivity.hottestNodeCpu.pessimistic).toBeGreaterThan(
      design.sensitivity.hottestNodeCpu.optimistic,
    );
    expect(design.sensitivity.meets).toEqual({ default: true, pessimistic: true, optimistic: true });
    const table = keyspread([scenario, "--duration", "3m", "--sensitivity"]);
    expect(table.stdout).toContain(
      "each figure a range over the model's pessimistic and optimistic constants",
    );
  });

  it("fails with a message naming what is wrong", () => {
    expect(keyspread([scenario, "--design", "nope"])).toMatchObject({
      code: 1,
      stderr: 'keyspread: design "nope" is not in scenario "small"; designs: unsalted, salted-8\n',
    });
    expect(keyspread([scenario, "--duration", "soon"]).stderr).toContain(
      '--duration: "soon" is not a duration',
    );
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "name: bad\ncluster: { nodes: 0 }\nworkload: { groups: [] }\ndesigns: []\n");
    // Every problem, each with its path.
    expect(keyspread([bad]).stderr).toBe(
      [
        `keyspread: scenario file ${bad}: invalid scenario:`,
        "× cluster.nodes must be at least 1",
        "  → at cluster.nodes",
        "× workload.groups needs at least one group",
        "  → at workload.groups",
        "× designs needs at least one design",
        "  → at designs",
        "",
      ].join("\n"),
    );
  });
});

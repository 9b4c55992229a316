// `keyspread examples` on the built bin: what it lists, what it copies, and what it refuses.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { describe, expect, it } from "vitest";

const examples = (...args: string[]) => {
  const result = spawnSync("node", ["dist/cli/main.js", "examples", ...args], { encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
};

describe("keyspread examples", () => {
  it("lists every bundled scenario, schema and log by name and kind", () => {
    const listed = JSON.parse(examples("--json").stdout) as { name: string; kind: string; file: string }[];
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "fleet-hotspot", kind: "scenario", file: "fleet-hotspot.yaml" }),
        expect.objectContaining({ name: "schemas/fleet", kind: "schema", file: "fleet.yaml" }),
        expect.objectContaining({
          name: "replay/posts-access",
          kind: "access-log",
          file: "posts-access.csv",
        }),
        expect.objectContaining({ name: "k8s/keyspread-ingest", kind: "deployment" }),
        expect.objectContaining({ name: "k8s/Dockerfile", kind: "deployment", file: "Dockerfile" }),
        expect.objectContaining({ name: "jobs/kubernetes-backfill.job", kind: "job" }),
      ]),
    );
    expect(listed.every((example) => example.kind !== "schema" || example.file.endsWith(".yaml"))).toBe(true);
  });

  it("copies one example into a directory, and a folder with its layout (the log decompressed)", () => {
    const to = mkdtempSync(join(tmpdir(), "keyspread-examples-"));
    const one = examples("schemas/fleet", "--to", to);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout.trim().split("\n")).toEqual([join(to, "fleet.yaml")]);
    expect(readFileSync(join(to, "fleet.yaml"), "utf8")).toBe(
      readFileSync("examples/schemas/fleet.yaml", "utf8"),
    );

    const folder = examples("replay", "--to", to);
    expect(folder.code, folder.stderr).toBe(0);
    expect(readdirSync(join(to, "replay")).sort()).toEqual([
      "author-first.yaml",
      "current.yaml",
      "posts-access.csv",
      "salt-32-by-ts.yaml",
    ]);
    const log = readFileSync(join(to, "replay/posts-access.csv"));
    expect(log).toEqual(brotliDecompressSync(readFileSync("examples/replay/posts-access.csv.br")));
    expect(log.toString("utf8", 0, 16)).toBe("ts,key,op,bytes\n");
  });

  it("copies every example with --to alone, in the layout the docs' paths use", () => {
    const to = mkdtempSync(join(tmpdir(), "keyspread-examples-"));
    const all = examples("--to", join(to, "examples"));
    expect(all.code, all.stderr).toBe(0);
    const written = all.stdout.trim().split("\n");
    expect(written).toEqual(
      expect.arrayContaining([
        join(to, "examples/fleet-hotspot.yaml"),
        join(to, "examples/schemas/fleet.yaml"),
        join(to, "examples/replay/posts-access.csv"),
      ]),
    );
    expect(written).toHaveLength(JSON.parse(examples("--json").stdout).length);
  });

  it("refuses an unknown name and a file that exists, naming them", () => {
    const to = mkdtempSync(join(tmpdir(), "keyspread-examples-"));
    const unknown = examples("fleet-hotspt", "--to", to);
    expect(unknown.code).toBe(1);
    // The message names the value and every example it could have been.
    const names = (JSON.parse(examples("--json").stdout) as { name: string }[]).map((each) => each.name);
    expect(names).toContain("fleet-hotspot");
    expect(unknown.stderr).toBe(
      `keyspread: examples: no example "fleet-hotspt"; examples: ${names.join(", ")}\n`,
    );
    expect(examples("fleet-hotspot", "--to", to).code).toBe(0);
    const again = examples("fleet-hotspot", "--to", to);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(join(to, "fleet-hotspot.yaml"));
  });
});

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// End-to-end: the README's main job on the built bin, shortened (5 simulated minutes, 1,000 rows).
describe("keyspread lab", () => {
  it("simulates every fleet design, writes the heatmaps and checks each design through the library", () => {
    const out = mkdtempSync(join(tmpdir(), "keyspread-lab-"));
    const result = spawnSync(
      "node",
      ["dist/cli/main.js", "lab", "--duration", "5m", "--rows", "1000", "--out", out],
      {
        encoding: "utf8",
      },
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    const designs = [
      "as-is",
      "as-is-on-24-nodes",
      "salt-16-by-deviceID+ts",
      "salt-64-by-deviceID+ts",
      "salt-256-by-deviceID+ts",
      "salt-64-by-deviceID",
      "promote-shard",
      "batch-2s",
    ];
    const library = result.stdout.slice(result.stdout.indexOf("Through the library"));
    for (const design of designs) {
      expect(library).toMatch(new RegExp(`^${design} .* yes$`, "m"));
      expect(existsSync(join(out, `heatmap-${design}.png`))).toBe(true);
    }
    expect(existsSync(join(out, "heatmaps.html"))).toBe(true);
    expect(existsSync(join(out, "results.json"))).toBe(true);
  });
});

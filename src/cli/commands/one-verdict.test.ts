/**
 * End-to-end on the built bin: `lab` and `advise --scenario` run one judgement, so on the same
 * file they recommend the same design, on the same nodes, at the same $/month — for the order
 * table of issue 41 (one global sequence, storage-bound), the fleet incident (calibrated to the
 * observed cluster) and the sequential ids. Short simulations: these suites are CPU-heavy.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { VerdictHeadline } from "../../advise/report/verdict-headline.js";

const out = mkdtempSync(join(tmpdir(), "keyspread-one-verdict-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** Each file, with the salt bucket counts both commands try (the fleet's full set takes minutes). */
const SCENARIOS: [string, string[]][] = [
  ["examples/orders.yaml", []],
  ["examples/fleet-hotspot.yaml", ["--buckets", "24,64"]],
  ["examples/sequential-ids.yaml", []],
];
const DURATION = "5m";

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync("node", ["dist/cli/main.js", ...args], { encoding: "utf8" });
}

const headlineOf = (json: string) => (JSON.parse(json) as { headline: VerdictHeadline }).headline;

describe("lab and advise give one verdict", () => {
  it.each(SCENARIOS)(
    "%s: the same recommended design, nodes and $/month",
    (file, buckets) => {
      const labOut = join(out, file.replace(/\W+/g, "-"));
      const lab = run([
        "lab",
        file,
        "--duration",
        DURATION,
        "--no-sensitivity",
        "--rows",
        "50",
        "--out",
        labOut,
        ...buckets,
      ]);
      expect(lab.status, lab.stderr).toBe(0);
      const advise = run(["advise", file, "--duration", DURATION, "--json", ...buckets]);
      expect(advise.status === 0 || advise.status === 2, advise.stderr).toBe(true);
      const fromLab = headlineOf(readFileSync(join(labOut, "advice.json"), "utf8"));
      const fromAdvise = headlineOf(advise.stdout);
      expect(fromAdvise.recommended).toBeDefined();
      expect(fromLab.recommended).toEqual(fromAdvise.recommended);
      expect(fromLab.sizedBy).toBe(fromAdvise.sizedBy);
      // The lab prints the headline first: the recommendation within its first lines.
      const recommended = fromLab.recommended!;
      expect(lab.stdout.split("\n").slice(0, 6).join("\n")).toContain(recommended.design);
    },
    240_000,
  );

  it("names storage first for the storage-bound order table, and recommends the global counter's digits reversed, its gets simulated", () => {
    const advise = run(["advise", "examples/orders.yaml", "--duration", DURATION, "--json"]);
    const advice = JSON.parse(advise.stdout) as {
      headline: VerdictHeadline;
      candidates: { name: string; changes: { kind: string }[]; reads: { status: string }[] }[];
    };
    const headline = advice.headline;
    expect(headline.sizedBy).toBe("storage");
    expect(headline.storageNodes).toBeGreaterThan(headline.cpuNodes!);
    const recommended = headline.recommended!;
    expect(recommended.nodes).toBe(headline.storageNodes);
    // A reversed sequence spreads the writes with no bucket count to size, and a get stays one row.
    const chosen = advice.candidates.find((each) => each.name === recommended.design)!;
    expect(chosen.changes.map((change) => change.kind)).toEqual(["reverse-sequence"]);
    // Every declared get is simulated, under every design (none is left "not simulated").
    for (const candidate of advice.candidates)
      expect(candidate.reads.map((read) => read.status)).toEqual(["simulated"]);
    // A cheaper way to hold 90 days is named (HDD, or keeping fewer days).
    expect(headline.cheapest?.monthlyUsd).toBeLessThan(recommended.monthlyUsd!);
    // Printed: storage is named within the first three lines.
    const printed = run(["advise", "examples/orders.yaml", "--duration", DURATION]);
    expect(printed.stdout.split("\n").slice(0, 3).join("\n")).toMatch(/storage/i);
  }, 240_000);
});

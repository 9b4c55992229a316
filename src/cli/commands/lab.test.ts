/**
 * End-to-end: the README's main job on the built bin, shortened (5 simulated minutes, 1,000 rows),
 * then its heatmap page in headless Chromium.
 */
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drawnPanels, launchChromium, watchedPage } from "../../../test/chromium.js";
import { expectGolden } from "../../../test/golden.js";
import { fileSlug } from "../../viz/render/write-heatmaps.js";

const DESIGNS = [
  "as-is",
  "as-is-on-24-nodes",
  "salt-16-by-deviceID+ts",
  "salt-64-by-deviceID+ts",
  "salt-256-by-deviceID+ts",
  "salt-64-by-deviceID",
  "promote-shard",
  "batch-2s",
];

const out = mkdtempSync(join(tmpdir(), "keyspread-lab-"));
let run: SpawnSyncReturns<string>;
let browser: Browser | undefined;

beforeAll(() => {
  run = spawnSync("node", ["dist/cli/main.js", "lab", "--duration", "5m", "--rows", "1000", "--out", out], {
    encoding: "utf8",
  });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  rmSync(out, { recursive: true, force: true });
});

describe("keyspread lab", () => {
  it("ends with one verdict, in 120 columns: the winner, why each other design loses, the model's uncertainty", () => {
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toBe("");
    const lines = run.stdout.split("\n");
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(120);
    // The verdict's words are in the golden file; here, what it is made of (advice.json).
    const advice = JSON.parse(readFileSync(join(out, "advice.json"), "utf8"));
    const recommended: string | undefined = advice.recommended?.name;
    const lostBecause = new Map<string, string>(
      advice.candidates.map((each: { name: string; lostBecause?: string }) => [each.name, each.lostBecause]),
    );
    // The advisor's notes beyond the key: the 30-day scans belong in an analytical store.
    expect(advice.beyondTheKey.map((note: { kind: string }) => note.kind)).toContain("analytical-store");
    const losers = run.stdout.slice(
      run.stdout.indexOf("Why the others lose:"),
      run.stdout.indexOf("Beyond the key:"),
    );
    const table = run.stdout.slice(0, run.stdout.indexOf("Verdict:"));
    for (const design of DESIGNS) {
      // Each design has a row with a verdict, and is either the winner or says why it loses.
      expect(table).toMatch(
        new RegExp(`^${design.replace("+", "\\+")} +\\d+ .*(recommended|misses|meets)`, "m"),
      );
      expect(losers.includes(`- ${design}: `) || table.includes("recommended")).toBe(true);
      if (design !== recommended) expect(lostBecause.get(design), design).toBeDefined();
    }
  });

  it("prints the verdict and writes report.md, report.html and advice.json as the golden files hold them", () => {
    expect(run.status, run.stderr).toBe(0);
    expectGolden(import.meta.url, "fleet-lab.txt", run.stdout.replaceAll(out, "<out>"));
    for (const [file, golden] of [
      ["report.md", "fleet-report.md"],
      ["report.html", "fleet-report.html"],
      ["advice.json", "fleet-advice.json"],
    ] as const)
      expectGolden(import.meta.url, golden, readFileSync(join(out, file), "utf8"));
  });

  it("writes and reads every design through the library on the embedded store", () => {
    const library = run.stdout.slice(run.stdout.indexOf("Through the library"));
    for (const design of DESIGNS)
      expect(library).toMatch(new RegExp(`^${design.replace("+", "\\+")} .* yes$`, "m"));
  });

  it("writes reports, summaries (no time series) and a heatmap per design, and lists the paths", () => {
    for (const name of [
      "report.md",
      "report.html",
      "advice.json",
      "results.json",
      "heatmaps.html",
      "main.tf",
      "gcloud.sh",
    ]) {
      expect(run.stdout).toContain(join(out, name));
    }
    for (const design of DESIGNS) expect(existsSync(join(out, `heatmap-${fileSlug(design)}.png`))).toBe(true);
    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
    expect(results.designs[0].timeline).toBeUndefined();
    expect(results.designs[0].sensitivity.hottestNodeCpu.pessimistic).toBeGreaterThan(0);
    expect(statSync(join(out, "results.json")).size).toBeLessThan(1_000_000);
    // The recommended instance to apply: the fleet's two clusters, a profile per route it declares.
    const terraform = readFileSync(join(out, "main.tf"), "utf8");
    expect(terraform.match(/^ {2}cluster \{$/gm)).toHaveLength(2);
    expect(terraform).toMatch(/app_profile_id += "ingest-and-latest"/);
    expect(readFileSync(join(out, "gcloud.sh"), "utf8")).toMatch(/--route-to=fleet-east/);
  });

  it("draws the heatmap page in Chromium: the verdict, the colour bar and every design's panel", async () => {
    browser = await launchChromium();
    const problems: string[] = [];
    const page = await watchedPage(browser, problems);
    await page.goto(pathToFileURL(join(out, "heatmaps.html")).href);
    // The page inflates its data after loading, then builds and draws every panel at once.
    await page.waitForSelector("canvas.panel");
    expect(problems).toEqual([]);
    // The headline first: what sizes the cluster, then the recommendation.
    const intro = await page.locator("p.intro").allTextContents();
    expectGolden(import.meta.url, "fleet-heatmaps-intro.txt", `${intro.join("\n")}\n`);
    expect(await page.locator("#colorbar canvas").isVisible()).toBe(true);
    expect(await page.locator("#colorbar .tick").count()).toBeGreaterThan(1);
    const panels = await drawnPanels(page);
    expect(panels.map((panel) => panel.design).slice(0, DESIGNS.length)).toEqual(DESIGNS);
    for (const panel of panels) expect(panel.opaque, panel.design).toBeGreaterThan(0.99);
    // Each panel says its verdict under its name.
    const notes = await page.locator("section p.notes").allTextContents();
    expect(notes.filter((note) => /^(recommended|misses|meets)/.test(note)).length).toBe(panels.length);
  }, 60_000);

  it("keeps each page within 2 MB", () => {
    for (const page of ["heatmaps.html", "report.html"]) {
      expect(statSync(join(out, page)).size, page).toBeLessThan(2_000_000);
    }
  });

  it("names the heatmap rows by bucket and device in Chromium, on the axis and on hover (screenshot in test-output/lab)", async () => {
    browser ??= await launchChromium();
    const problems: string[] = [];
    const page = await watchedPage(browser, problems, { width: 1600, height: 1000 });
    await page.goto(pathToFileURL(join(out, "heatmaps.html")).href);
    await page.waitForSelector("canvas.panel");
    const axis = async (design: string) => {
      const canvas = page.locator(`canvas[data-design="${design}"]`);
      const dataset = await canvas.evaluate((element) => ({
        ...(element as unknown as { dataset: Record<string, string> }).dataset,
      }));
      return { canvas, dataset, labels: JSON.parse(dataset.rowLabels!) as [number, string][] };
    };
    // The current key: rows named by device id (the fleet's acme-… range), never in hex.
    const asIs = await axis("as-is");
    expect(asIs.labels.length).toBeGreaterThan(3);
    for (const [, label] of asIs.labels) expect(label).not.toMatch(/hex:/);
    const acme = asIs.labels.find(([, label]) => /^acme-\d+/.test(label));
    expect(acme, JSON.stringify(asIs.labels)).toBeDefined();
    // A salted design: rows named by bucket first (b00 … b63), then the device ids.
    const salted = await axis("salt-64-by-deviceID+ts");
    // (The first row starts at the table's start, before any bucket: `…–b00`.)
    for (const [row, label] of salted.labels) {
      expect(label).toMatch(row === 0 ? /^…–b00/ : /^b\d\d( · |–|$)/);
    }
    // Hovering the as-is row shows its name through the schema, then the raw key range.
    const box = (await asIs.canvas.boundingBox())!;
    const [left, top, width, height, rows] = ["plotLeft", "plotTop", "plotWidth", "plotHeight", "rows"].map(
      (key) => Number(asIs.dataset[key]),
    );
    await page.mouse.move(box.x + left! + width! / 2, box.y + top! + ((acme![0] + 0.5) / rows!) * height!);
    const tooltip = page.locator("#tooltip");
    await expect.poll(() => tooltip.isVisible()).toBe(true);
    const lines = (await tooltip.textContent())!.split("\n");
    const [field, ...name] = (lines[1] ?? "").split(" ");
    expect(field).toBe("row");
    expect(name.join(" ")).toMatch(/^acme-\d+/);
    expect(lines[1]).not.toMatch(/hex:/);
    expect(lines[2]).toMatch(/^keys \[/);
    const shots = join("test-output", "lab");
    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: join(shots, "fleet-heatmaps.png"), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});

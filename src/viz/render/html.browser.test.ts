/**
 * The HTML heatmap in real headless Chromium (Debian package `chromium`, driven by playwright-core):
 * it loads without console errors, hovering a hot cell shows its key range, drag-zoom and the
 * metric switch work; a run's page shows the colour bar on the images' scale and every design.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, watchedPage } from "../../../test/chromium.js";
import { syntheticAccess } from "../input/synthetic-access.js";
import { matrixFromRecords } from "../matrix/records-matrix.js";
import { findingSummary } from "../patterns/finding-text.js";
import { sharedScale } from "./color-scale.js";
import { renderHeatmapHtml } from "./html.js";
import { heatmapLayout } from "./layout.js";
import { fixtureMatrix, fixtureRun, HOT_ROW } from "./render.fixture.js";
import { writeHeatmaps } from "./write-heatmaps.js";

let browser: Browser;
let page: Page;
const problems: string[] = [];
const simulated = fixtureMatrix();

beforeAll(async () => {
  browser = await launchChromium();
  page = await watchedPage(browser, problems, { width: 1400, height: 800 });
  const html = renderHeatmapHtml([
    { name: "simulated", matrix: simulated },
    {
      name: "from log",
      matrix: matrixFromRecords([...syntheticAccess("hot-band", { records: 20_000 })], { maxRows: 100 }),
    },
  ]);
  await page.setContent(html, { waitUntil: "load" });
  // The page inflates its data after loading, then builds and draws every panel at once.
  await page.waitForSelector("canvas.panel");
});

let runDir: string;
afterAll(async () => {
  await browser?.close();
  if (runDir) await rm(runDir, { recursive: true, force: true });
});

/** Page coordinates of the centre of a cell of the "simulated" panel. */
async function cellCentre(row: number, column: number): Promise<{ x: number; y: number }> {
  const canvas = page.locator('canvas[data-design="simulated"]');
  const box = (await canvas.boundingBox())!;
  const plot = await canvas.evaluate((element) => ({
    ...(element as unknown as { dataset: Record<string, string> }).dataset,
  }));
  const [left, top, width, height] = [plot.plotLeft, plot.plotTop, plot.plotWidth, plot.plotHeight].map(
    Number,
  );
  return {
    x: box.x + left! + ((column + 0.5) / simulated.time.columns) * width!,
    y: box.y + top! + ((row + 0.5) / simulated.rows.length) * height!,
  };
}

describe("HTML heatmap in Chromium", () => {
  it("loads both designs with no console errors", async () => {
    expect(await page.locator("canvas.panel").count()).toBe(2);
    const findings = page.locator("section li");
    expect(await findings.allTextContents()).toEqual([
      expect.stringMatching(/^Sudden hot range.*01#dev5/),
      expect.stringMatching(/^Sustained hot band.*t08#/),
    ]);
    expect(problems).toEqual([]);
  });

  it("shows the key range, time and value of a hot cell on hover", async () => {
    const hotRow = simulated.rows.findIndex((row) => row.start.toString() === "01#dev5");
    expect(hotRow).toBe(HOT_ROW);
    const { x, y } = await cellCentre(hotRow, 15);
    await page.mouse.move(x, y);
    const tooltip = page.locator("#tooltip");
    await expect.poll(() => tooltip.isVisible()).toBe(true);
    const text = await tooltip.textContent();
    expect(text).toContain("keys [01#dev5, 01#dev6)");
    expect(text).toContain("t=15s – t=16s");
    expect(text).toContain("writes: 50k");
    expect(text).toContain("node CPU ≥ 90 %");
  });

  it("zooms to a dragged rectangle and switches metric", async () => {
    const from = await cellCentre(HOT_ROW, 12);
    const to = await cellCentre(HOT_ROW + 1, 18);
    await page.mouse.move(from.x - 10, from.y - 5);
    await page.mouse.down();
    await page.mouse.move(to.x, to.y, { steps: 4 });
    await page.mouse.up();
    // The zoomed view starts at the dragged cell: row 01#dev5, t=12 s.
    const canvas = page.locator('canvas[data-design="simulated"]');
    const box = (await canvas.boundingBox())!;
    await page.mouse.move(box.x + 152, box.y + 10);
    const text = await page.locator("#tooltip").textContent();
    expect(text).toContain("keys [01#dev5, 01#dev6)");
    expect(text).toContain("t=12s – t=13s");
    await page.selectOption("#metric", "cpu");
    expect(await page.locator("#legend").textContent()).toContain("node CPU");
    expect(problems).toEqual([]);
  });
});

/** What the tests read of a canvas element (the DOM's types are not in this Node project). */
interface Canvas2d {
  getContext(kind: "2d"): {
    getImageData(x: number, y: number, width: number, height: number): { data: Uint8ClampedArray };
  };
}

describe("a run's heatmap page (simulate --out, lab) in Chromium", () => {
  it("shows the colour bar on the images' scale and renders every design panel", async () => {
    runDir = await mkdtemp(join(tmpdir(), "keyspread-heatmap-page-"));
    const written = await writeHeatmaps(fixtureRun(), runDir);
    const errors: string[] = [];
    const runPage = await watchedPage(browser, errors);
    await runPage.goto(pathToFileURL(written.html).href);
    await runPage.waitForSelector("canvas.panel");
    // Read now: the checks below read pixels back, which Chromium itself warns about.
    expect(errors).toEqual([]);

    // The colour bar: black at the bottom of the scale, white at the top, labelled as the PNGs are.
    const bar = runPage.locator("#colorbar");
    expect(await bar.isVisible()).toBe(true);
    const ends = await bar.locator("canvas").evaluate((canvas) => {
      const element = canvas as unknown as Canvas2d & { width: number };
      const context = element.getContext("2d");
      return [
        context.getImageData(0, 6, 1, 1).data,
        context.getImageData(element.width - 1, 6, 1, 1).data,
      ].map((pixel) => [...pixel]);
    });
    expect(ends).toEqual([
      [0, 0, 0, 255],
      [255, 255, 255, 255],
    ]);
    const matrices = written.designs.map((design) => design.matrix);
    const scale = sharedScale(matrices, "ops");
    const pngLegend = heatmapLayout(matrices[0]!, "ops", scale).legendTicks.map((tick) =>
      tick.label.replace(">=", "≥ "),
    );
    expect(await bar.locator(".tick").allTextContents()).toEqual(pngLegend);
    expect(await runPage.locator("#scale-note").textContent()).toContain("the same for every design");
    expect(await runPage.locator("#lanes-note").isVisible()).toBe(true);

    // Every design: a titled panel whose plot is drawn, on the PNGs' time ticks, with its findings.
    const panels = runPage.locator("canvas.panel");
    expect(await panels.count()).toBe(3);
    expect(await runPage.locator("section h2").allTextContents()).toEqual([
      "incident",
      "more nodes",
      "salted",
    ]);
    // The simulator's verdict for a design sits under its name.
    expect(await runPage.locator("section p.notes").first().textContent()).toBe(
      "misses Google's guidance: hottest node 97% > 90%",
    );
    const pngTicks = heatmapLayout(matrices[0]!, "ops", scale)
      .timeTicks.map((tick) => tick.label)
      .join(" ");
    for (const [index, design] of written.designs.entries()) {
      const panel = panels.nth(index);
      const drawn = await panel.evaluate((canvas) => {
        const element = canvas as unknown as Canvas2d & { dataset: Record<string, string> };
        const [left, top, width, height] = ["plotLeft", "plotTop", "plotWidth", "plotHeight"].map((key) =>
          Number(element.dataset[key]),
        );
        const pixels = element.getContext("2d").getImageData(left!, top!, width!, height!).data;
        let coloured = 0;
        for (let offset = 0; offset < pixels.length; offset += 4) {
          if (pixels[offset] !== 24 || pixels[offset + 1] !== 24 || pixels[offset + 2] !== 28) coloured++;
        }
        return { coloured: coloured / (pixels.length / 4), ticks: element.dataset.timeTicks };
      });
      expect(drawn.coloured).toBe(1);
      expect(drawn.ticks).toBe(pngTicks);
      const findings = await runPage.locator("section").nth(index).locator("li").allTextContents();
      expect(findings).toEqual(design.patterns.map(findingSummary));
    }
    await runPage.close();
  });
});

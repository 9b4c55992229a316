/**
 * The HTML heatmap in real headless Chromium (Debian package `chromium`, driven by playwright-core):
 * it loads without console errors, hovering a hot cell shows its key range, drag-zoom and the
 * metric switch work.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syntheticAccess } from "../input/synthetic-access.js";
import { matrixFromRecords } from "../matrix/records-matrix.js";
import { renderHeatmapHtml } from "./html.js";
import { fixtureMatrix, HOT_ROW } from "./render.fixture.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

let browser: Browser;
let page: Page;
const problems: string[] = [];
const simulated = fixtureMatrix();

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install the Debian package "chromium" (or set CHROMIUM_PATH)`,
    );
  }
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  const html = renderHeatmapHtml([
    { name: "simulated", matrix: simulated },
    {
      name: "from log",
      matrix: matrixFromRecords([...syntheticAccess("hot-band", { records: 20_000 })], { maxRows: 100 }),
    },
  ]);
  await page.setContent(html, { waitUntil: "load" });
});

afterAll(async () => {
  await browser?.close();
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
    expect(await page.locator("canvas").count()).toBe(2);
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
    expect(text).toContain("t=15 s – t=16 s");
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
    expect(text).toContain("t=12 s – t=13 s");
    await page.selectOption("#metric", "cpu");
    expect(await page.locator("#legend").textContent()).toContain("node CPU");
    expect(problems).toEqual([]);
  });
});

/**
 * The advisor's HTML report in real headless Chromium (Debian package `chromium`, driven by
 * playwright-core): it loads without console errors, states the verdict, highlights the
 * recommended design, and every heatmap panel in its side-by-side frame is drawn.
 */
import { readFileSync } from "node:fs";
import type { Browser, Frame, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drawnPanels, launchChromium, watchedPage } from "../../../test/chromium.js";
import { parseScenario } from "../../sim/scenario/scenario.js";
import { type Advice, adviseScenario, candidateLabel } from "../judge/advise.js";
import { adviceHtml } from "./report-html.js";
import { headline, heatmapCandidates } from "./report-table.js";

let browser: Browser;
let page: Page;
let advice: Advice;
const problems: string[] = [];

beforeAll(async () => {
  // The textbook keys' time-first posts: four candidates, so the report shows four heatmap panels.
  const posts = parseScenario(
    readFileSync(new URL("../../../examples/timestamp-first.yaml", import.meta.url), "utf8"),
  );
  // Planned for twice today's workload, so the report shows the growth run.
  advice = adviseScenario(posts, { durationS: 1800, buckets: [12], batching: false, growth: 2 });
  browser = await launchChromium();
  page = await watchedPage(browser, problems);
  await page.setContent(adviceHtml(advice), { waitUntil: "load" });
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

/** The side-by-side heatmap page inside the report's iframe. */
async function heatmapFrame(): Promise<Frame> {
  const handle = await page.locator('iframe[title="heatmaps"]').elementHandle();
  return (await handle!.contentFrame())!;
}

describe("the advisor's HTML report in Chromium", () => {
  it("states the verdict and highlights the recommended design", async () => {
    const verdict = await page.locator("p.headline").textContent();
    // The page shows the headline the reports share; the recommendation still meets the targets at 2×.
    expect(verdict).toBe(headline(advice));
    expect(advice.recommended?.candidate.name).toBe("promote-author");
    expect(advice.recommended?.headroom).toMatchObject({ growth: 2, failures: [] });
    expect(await page.locator("tr.chosen td").first().textContent()).toBe("promote-author");
    expect(await page.locator("h2", { hasText: "At the stated growth" }).count()).toBe(1);
    expect(await page.locator("h2", { hasText: "Sizing and cost" }).count()).toBe(1);
    expect(problems).toEqual([]);
  });

  it("draws every heatmap panel: as-is, the recommendation and the simplest others", async () => {
    const frame = await heatmapFrame();
    const expected = heatmapCandidates(advice).map((each) => candidateLabel(each, advice.nodes));
    expect(expected).toHaveLength(4);
    const panels = await drawnPanels(frame);
    expect(panels.map((panel) => panel.design)).toEqual(expected);
    for (const panel of panels) {
      expect(panel.plotWidth, panel.design).toBeGreaterThan(50);
      expect(panel.opaque, panel.design).toBeGreaterThan(0.99);
    }
    // The current key's hot tail stands out from its cold key space.
    expect(panels[0]!.colours).toBeGreaterThan(3);
    // The frame is tall enough that no panel is cut off.
    const frameHeight = await page
      .locator('iframe[title="heatmaps"]')
      .evaluate((element) => element.clientHeight);
    const contentHeight = await frame
      .locator("html")
      .evaluate((html) => (html as unknown as { scrollHeight: number }).scrollHeight);
    expect(frameHeight).toBeGreaterThanOrEqual(contentHeight);
    expect(problems).toEqual([]);
  });
});

/**
 * Headless Chromium for the browser tests (Debian package `chromium`, driven by playwright-core):
 * one launch recipe, a page that collects console errors and warnings, and a read-back of which
 * heatmap panels a page has drawn.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium, type Frame, type Page } from "playwright-core";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install the Debian package "chromium" (or set CHROMIUM_PATH)`,
    );
  }
  return chromium.launch({
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
}

/** A new page whose console errors and warnings, and uncaught errors, land in `problems`. */
export async function watchedPage(
  browser: Browser,
  problems: string[],
  viewport = { width: 1400, height: 900 },
): Promise<Page> {
  const page = await browser.newPage({ viewport });
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  return page;
}

export interface DrawnPanel {
  design: string;
  plotWidth: number;
  /** Share of the plot's pixels that are opaque (a canvas nobody drew on is transparent). */
  opaque: number;
  /** Distinct colours in the plot: a hot spot adds colours to a cold key space. */
  colours: number;
}

/** Every heatmap panel of a page (or frame) in order, read back from its canvas. */
export async function drawnPanels(page: Page | Frame): Promise<DrawnPanel[]> {
  await page.waitForSelector("canvas[data-design]");
  return page.locator("canvas[data-design]").evaluateAll((canvases) =>
    canvases.map((element) => {
      const canvas = element as unknown as {
        dataset: Record<string, string>;
        getContext(kind: "2d"): {
          getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
        };
      };
      const [left, top, width, height] = ["plotLeft", "plotTop", "plotWidth", "plotHeight"].map((key) =>
        Math.round(Number(canvas.dataset[key])),
      );
      const pixels = canvas.getContext("2d").getImageData(left!, top!, width!, height!).data;
      const colours = new Set<number>();
      let opaque = 0;
      for (let i = 0; i < pixels.length; i += 4) {
        if (pixels[i + 3] === 255) opaque++;
        colours.add((pixels[i]! << 16) | (pixels[i + 1]! << 8) | pixels[i + 2]!);
      }
      return {
        design: canvas.dataset.design ?? "",
        plotWidth: width!,
        opaque: opaque / (pixels.length / 4),
        colours: colours.size,
      };
    }),
  );
}

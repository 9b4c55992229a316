/**
 * The studio's timings in headless Chromium (Debian's `chromium`), served by the built
 * `keyspread studio`: the page's weight (every file it loads), its first paint, and a one-design
 * change on the fleet (one design's salt buckets) from the change to the new verdict, beside the
 * same run in Node, so the ratio says what the browser costs. The longest main-thread frame during
 * the run says whether the page froze. STUDIO_BENCH_DURATION_S sets the simulated time (default
 * 3600: the fleet as `keyspread lab --no-sensitivity` runs it).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { shareFragment } from "../src/studio/share-link.js";
import { runStudio, type StudioRequest } from "../src/studio/studio-run.js";
import { launchChromium } from "../test/chromium.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const PAGE = join(root, "dist/studio-page");
const durationS = Number(process.env.STUDIO_BENCH_DURATION_S ?? 3600);
const FLEET = readFileSync(join(root, "examples/fleet-hotspot.yaml"), "utf8");
const DONE = `["done", "invalid", "failed"].includes(document.body.dataset.state)`;

const files = (directory: string): string[] =>
  readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(directory, entry.name)) : [join(directory, entry.name)],
  );
const pageBytes = files(PAGE).reduce((sum, file) => sum + statSync(file).size, 0);

const server: ChildProcess = spawn(
  process.execPath,
  ["dist/cli/main.js", "studio", "--port", "0", "--json"],
  {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  },
);
const base = await new Promise<string>((resolve) =>
  server.stdout!.once("data", (data: Buffer) => resolve(JSON.parse(data.toString()).url)),
);
const browser = await launchChromium();
try {
  // First paint: the page with no link (the fleet starts running in the worker meanwhile).
  const fresh = await browser.newPage();
  await fresh.goto(base);
  const firstPaintMs = await fresh.evaluate<number>(
    `new Promise((resolve) => { const find = () => { const paint = performance.getEntriesByName("first-contentful-paint")[0]; paint ? resolve(paint.startTime) : setTimeout(find, 20); }; find(); })`,
  );
  await fresh.close();

  const request: StudioRequest = { yaml: FLEET, controls: {}, durationS, sensitivity: false };
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(base + (await shareFragment(request)));
  await page.waitForFunction(DONE, null, { timeout: 0, polling: 250 });
  // One design's change: the current key salted over 16 buckets.
  await page.evaluate(`window.__longestFrame = 0; (function frame(last) { requestAnimationFrame((now) => {
    window.__longestFrame = Math.max(window.__longestFrame, now - last); frame(now); }); })(performance.now());`);
  await page.locator("#c-buckets").fill("16");
  const started = Date.now();
  await page.locator("#c-buckets").dispatchEvent("change");
  await page.waitForFunction(`document.body.dataset.state === "running"`);
  await page.waitForFunction(DONE, null, { timeout: 0, polling: 100 });
  const changeMs = Date.now() - started;
  const longestFrameMs = await page.evaluate<number>("window.__longestFrame");

  const nodeStarted = Date.now();
  runStudio({ ...request, controls: { design: "as-is", saltBuckets: 16 } });
  const nodeMs = Date.now() - nodeStarted;

  console.log(
    `studio: page ${(pageBytes / 1e6).toFixed(2)} MB; first paint ${firstPaintMs.toFixed(0)} ms; a one-design change on the fleet (${durationS} s simulated, no model-end reruns): ${(changeMs / 1000).toFixed(1)} s in the page, ${(nodeMs / 1000).toFixed(1)} s in Node; longest frame during the run ${longestFrameMs.toFixed(0)} ms`,
  );
  console.log(
    `bench studio: page_mb=${(pageBytes / 1e6).toFixed(2)} first_paint_ms=${firstPaintMs.toFixed(0)} change_s=${(changeMs / 1000).toFixed(1)} node_s=${(nodeMs / 1000).toFixed(1)} page_over_node=${(changeMs / nodeMs).toFixed(2)} longest_frame_ms=${longestFrameMs.toFixed(0)} simulated_s=${durationS}`,
  );
} finally {
  await browser.close();
  server.kill();
}

/**
 * The studio's timings in headless Chromium (Debian's `chromium`), served by the built
 * `keyspread studio`: the page's weight (every file it loads), its first paint, and a one-design
 * change on the fleet (one listed design's salt buckets, 16 → 32) from the change to the new
 * verdict, after the page's first run, beside the same change in Node after the same first run (the
 * worker's memo warm in both), so the ratio says what the browser costs. The changed design is not
 * the first: the first is the current key, which every generated candidate derives from, so a
 * change to it changes them all. The longest main-thread frame during the run says whether the page
 * froze; the longest after the verdict is on show (until the heatmap frame has drawn every design,
 * and a second more) whether showing the result froze it; the time from the worker's end to the
 * verdict is what the page adds to the worker's own. STUDIO_BENCH_DURATION_S sets the simulated time (default 3600: the fleet as `keyspread lab
 * --no-sensitivity` runs it).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Frame } from "playwright-core";
import { SimulationMemo } from "../src/lab/simulation-memo.js";
import { shareFragment } from "../src/studio/share-link.js";
import { runStudio, type StudioRequest } from "../src/studio/studio-run.js";
import { launchChromium } from "../test/chromium.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const PAGE = join(root, "dist/studio-page");
const durationS = Number(process.env.STUDIO_BENCH_DURATION_S ?? 3600);
const FLEET = readFileSync(join(root, "examples/fleet-hotspot.yaml"), "utf8");
/** The design the change touches, and its new bucket count. */
const CHANGED = { design: "salt-16-by-deviceID+ts", saltBuckets: 32 };
const DONE = `["done", "invalid", "failed"].includes(document.body.dataset.state)`;

const files = (directory: string): string[] =>
  readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(directory, entry.name)) : [join(directory, entry.name)],
  );
const pageBytes = files(PAGE).reduce((sum, file) => sum + statSync(file).size, 0);

/**
 * Ms until the heatmap frame shows a new document (the one before the change carries a mark) with
 * every design's panel drawn.
 */
async function heatmapsDrawn(frame: Frame): Promise<number> {
  const started = Date.now();
  await frame.waitForFunction(
    `(() => { const panels = [...document.querySelectorAll("canvas[data-design]")];
      return !window.__before && panels.length > 0 && panels.every((panel) => panel.dataset.rowLabels !== undefined); })()`,
    null,
    { timeout: 0, polling: 20 },
  );
  return Date.now() - started;
}

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
  await page.locator("#c-design").selectOption(CHANGED.design);
  // Every frame's start and length, and when the run's verdict was on show (the state goes to
  // "done" with it; the files and the heatmap page follow).
  await page.evaluate(`window.__frames = []; (function frame(last) { requestAnimationFrame((now) => {
    window.__frames.push([last, now - last]); frame(now); }); })(performance.now());
    new MutationObserver(() => { if (${DONE}) window.__shownAt ??= performance.now(); })
      .observe(document.body, { attributes: true, attributeFilter: ["data-state"] });`);
  const heatmaps = await (await page.locator("iframe#heatmaps").elementHandle())?.contentFrame();
  if (!heatmaps) throw new Error("the page shows no heatmap frame after its first run");
  await heatmaps.evaluate("window.__before = true");
  await page.locator("#c-buckets").fill(String(CHANGED.saltBuckets));
  const started = Date.now();
  await page.locator("#c-buckets").dispatchEvent("change");
  await page.waitForFunction(`document.body.dataset.state === "running"`);
  await page.waitForFunction(DONE, null, { timeout: 0, polling: 100 });
  const changeMs = Date.now() - started;
  // The heatmap frame loads the new heatmaps.html and draws every design; then a second more, in
  // which the page's thread should have nothing left to do.
  const heatmapsDrawnMs = await heatmapsDrawn(heatmaps);
  await page.waitForTimeout(1000);
  const [longestFrameMs, longestFrameAfterMs] = await page.evaluate<[number, number]>(
    `(() => { const longest = (frames) => Math.max(0, ...frames.map(([, length]) => length));
      return [longest(window.__frames.filter(([start]) => start < window.__shownAt)),
        longest(window.__frames.filter(([start]) => start >= window.__shownAt))]; })()`,
  );
  const workerMs = await page.evaluate<string>("document.body.dataset.workerMs ?? ''");
  const simulated = await page.evaluate<string>("document.body.dataset.simulated ?? ''");
  const remembered = await page.evaluate<string>("document.body.dataset.remembered ?? ''");

  const memo = new SimulationMemo();
  const firstStarted = Date.now();
  runStudio(request, { simulate: memo.simulate });
  const firstRunMs = Date.now() - firstStarted;
  const nodeStarted = Date.now();
  runStudio({ ...request, controls: CHANGED }, { simulate: memo.simulate });
  const nodeMs = Date.now() - nodeStarted;

  const s = (ms: number) => (ms / 1000).toFixed(2);
  /** From the worker's verdict (its own timing ends there) to the verdict on show. */
  const afterWorkerMs = changeMs - Number(workerMs);
  console.log(
    `studio: page ${(pageBytes / 1e6).toFixed(2)} MB; first paint ${firstPaintMs.toFixed(0)} ms; a one-design change on the fleet (${durationS} s simulated, no model-end reruns): ${s(changeMs)} s in the page, ${s(nodeMs)} s in Node (the first run: ${s(firstRunMs)} s in Node); longest frame during the run ${longestFrameMs.toFixed(0)} ms, after it ${longestFrameAfterMs.toFixed(0)} ms; ${afterWorkerMs.toFixed(0)} ms from the worker's end to the verdict; heatmaps drawn ${s(heatmapsDrawnMs)} s after the verdict`,
  );
  console.log(
    `bench studio: one_design_change_s=${s(changeMs)} first_paint_s=${s(firstPaintMs)} page_mb=${(pageBytes / 1e6).toFixed(2)} node_change_s=${s(nodeMs)} page_over_node=${(changeMs / nodeMs).toFixed(2)} node_first_run_s=${s(firstRunMs)} change_over_first_run=${(nodeMs / firstRunMs).toFixed(3)} longest_frame_ms=${longestFrameMs.toFixed(0)} worker_change_s=${s(Number(workerMs))} change_runs_simulated=${simulated} change_runs_remembered=${remembered} simulated_s=${durationS} longest_frame_after_ms=${longestFrameAfterMs.toFixed(0)} after_worker_ms=${afterWorkerMs.toFixed(0)} heatmaps_drawn_s=${s(heatmapsDrawnMs)}`,
  );
} finally {
  await browser.close();
  server.kill();
}

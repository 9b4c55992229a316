/**
 * The studio in real headless Chromium (Debian's `chromium`, driven by playwright-core), served by
 * the built `keyspread studio`: it opens the fleet, shows the verdict the lab gives (the page's
 * advice.json and results.json equal the files the built bin's `lab --out` writes, run beside it,
 * and so for every other bundled scenario),
 * moves to the CLI's verdict when the nodes go from 12 to 32, reproduces that from the shared link
 * after a reload (the picker showing the fleet), shows a broken YAML's error at its line with the
 * CLI's message, and cancels a run, keeping what it had simulated. The fleet runs for one simulated minute
 * without the model-end reruns (the link carries those options, as `lab --duration 1m
 * --no-sensitivity` takes them), so the test stays small; the screenshot goes to docs/.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drawnPanels, launchChromium, watchedPage } from "../../test/chromium.js";
import { parseScenario } from "../sim/scenario/scenario.js";
import { COMPARED_FILES, LAB_RUN, labOut } from "./lab-out.fixture.js";
import { shareFragment } from "./share-link.js";
import { runStudio, type StudioJudged, type StudioRequest } from "./studio-run.js";

const EXAMPLES = new URL("../../examples/", import.meta.url);
const FLEET = readFileSync(new URL("fleet-hotspot.yaml", EXAMPLES), "utf8");
const FLEET_FILE = new URL("fleet-hotspot.yaml", EXAMPLES).pathname;
/** The bundled scenarios besides the fleet, which the first test opens. */
const BUNDLED = readdirSync(EXAMPLES).filter(
  (name) => name.endsWith(".yaml") && name !== "fleet-hotspot.yaml",
);
const RUN = LAB_RUN;
/** A fleet run in the page on a busy 2-core machine: generous. */
const RUN_TIMEOUT = 600_000;

let server: ChildProcess;
let base: string;
let browser: Browser;
let page: Page;
const problems: string[] = [];

function nodeRun(request: StudioRequest): StudioJudged {
  const outcome = runStudio(request);
  if (outcome.kind !== "judged") throw new Error(JSON.stringify(outcome.problems));
  return outcome;
}

/** Waits until the page's run ends; returns how it ended. */
async function settled(): Promise<string> {
  await page.waitForFunction(
    `["done", "invalid", "failed", "cancelled"].includes(document.body.dataset.state)`,
    null,
    {
      timeout: RUN_TIMEOUT,
      polling: 250,
    },
  );
  return state();
}

/** The page's state: running, done, invalid, failed or cancelled. */
function state(): Promise<string> {
  return page.evaluate<string>("document.body.dataset.state");
}

async function pageVerdict() {
  return page.locator("#verdict").evaluate((element) => {
    const verdict = element as unknown as {
      dataset: Record<string, string>;
      querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }>;
    };
    return {
      recommended: verdict.dataset.recommended,
      lines: Array.from(verdict.querySelectorAll("p"), (p) => p.textContent),
    };
  });
}

/** A file the page offers for export, read back through its download link. */
async function exported(name: string): Promise<string> {
  return page.locator(`#exports a[download="${name}"]`).evaluate(async (link) => {
    return (await fetch((link as unknown as { href: string }).href)).text();
  });
}

/** The names of the files the page offers for export (they come just after the verdict). */
async function offered(): Promise<string[]> {
  await page.locator('#exports a[download="advice.json"]').waitFor();
  return page
    .locator("#exports a[download]")
    .evaluateAll((links) => links.map((link) => (link as unknown as { download: string }).download));
}

/**
 * The page's files are those `lab --out` wrote: the same set of compared files, byte for byte, but
 * results.json's figures to 12 significant digits (Chromium's V8 and Node's may round a
 * transcendental function's last bit differently: one latency figure differed in its 16th digit).
 */
async function expectLabFiles(written: Record<string, string>): Promise<void> {
  const names = await offered();
  const compared = COMPARED_FILES.filter((name) => name in written || names.includes(name));
  expect(compared).toContain("advice.json");
  for (const name of compared) {
    expect(names, name).toContain(name);
    if (name === "results.json")
      expectSameFigures(JSON.parse(await exported(name)), JSON.parse(written[name] ?? "null"));
    else expect(await exported(name), name).toBe(written[name]);
  }
}

/** The same JSON, numbers equal to 12 significant digits. */
function expectSameFigures(actual: unknown, expected: unknown, path = "$"): void {
  if (typeof expected === "number" && typeof actual === "number") {
    const scale = Math.max(Math.abs(expected), Number.MIN_VALUE);
    expect(Math.abs(actual - expected) / scale, path).toBeLessThan(1e-12);
  } else if (
    typeof expected === "object" &&
    expected !== null &&
    typeof actual === "object" &&
    actual !== null
  ) {
    expect(Object.keys(actual).sort(), path).toEqual(Object.keys(expected).sort());
    for (const [key, value] of Object.entries(expected))
      expectSameFigures((actual as Record<string, unknown>)[key], value, `${path}.${key}`);
  } else {
    expect(actual, path).toEqual(expected);
  }
}

beforeAll(async () => {
  server = spawn("node", ["dist/cli/main.js", "studio", "--port", "0", "--json"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  base = await new Promise<string>((resolve, reject) => {
    server.stdout!.once("data", (data: Buffer) => resolve(JSON.parse(data.toString()).url));
    server.once("exit", (code) => reject(new Error(`keyspread studio exited with ${code}`)));
  });
  browser = await launchChromium();
  page = await watchedPage(browser, problems);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  server?.kill();
});

describe("the studio in Chromium", () => {
  const request: StudioRequest = { yaml: FLEET, controls: {}, ...RUN };

  it(
    "opens the fleet with the lab's verdict, numbers and heatmaps",
    async () => {
      const lab = labOut(FLEET_FILE);
      await page.goto(base + (await shareFragment(request)));
      expect(await settled()).toBe("done");
      const written = await lab;
      const advice = JSON.parse(written["advice.json"] ?? "null");
      const results = JSON.parse(written["results.json"] ?? "null");
      expect(await pageVerdict()).toMatchObject({ recommended: advice.recommended.name });
      await expectLabFiles(written);
      const frame = (await (await page.locator("iframe#heatmaps").elementHandle())!.contentFrame())!;
      const panels = await drawnPanels(frame);
      expect(panels.map((panel) => panel.design)).toEqual(
        results.designs.map((design: { design: string }) => design.design),
      );
      expect(await page.locator("#cpu-chart svg").count()).toBe(1);
      expect(await page.locator("#compare table").count()).toBe(1);
      await page.screenshot({
        path: new URL("../../docs/studio.png", import.meta.url).pathname,
        fullPage: false,
      });
      expect(problems).toEqual([]);
    },
    RUN_TIMEOUT * 2,
  );

  it(
    "moves to the CLI's verdict when the nodes go from 12 to 32, and a reload of the link keeps it",
    async () => {
      const before = await pageVerdict();
      expect(await page.locator("#c-nodes").inputValue()).toBe("12");
      await page.locator("#c-nodes").fill("32");
      await page.locator("#c-nodes").dispatchEvent("change");
      await page.waitForFunction(`document.body.dataset.state === "running"`);
      expect(await settled()).toBe("done");
      const expected = nodeRun({ ...request, controls: { nodes: 32 } });
      const after = await pageVerdict();
      expect(after.lines).toEqual(expected.headlineLines);
      expect(after).not.toEqual(before);
      expect(parseScenario(await exported("scenario.yaml")).cluster.nodes).toBe(32);
      // The link now carries the change: a reload runs it again and gets the same.
      await page.waitForFunction(`location.hash.startsWith("#s=")`);
      await page.reload();
      expect(await settled()).toBe("done");
      expect(await pageVerdict()).toEqual(after);
      expect(await page.locator("#example").inputValue()).toBe("fleet-hotspot");
      expect(await page.locator("#c-nodes").inputValue()).toBe("32");
      expect(problems).toEqual([]);
    },
    RUN_TIMEOUT * 3,
  );

  it.each(BUNDLED)(
    "%s: the page's verdict and files are those `lab --out` writes",
    async (name) => {
      const file = new URL(name, EXAMPLES).pathname;
      const lab = labOut(file);
      await page.goto("about:blank");
      await page.goto(
        base + (await shareFragment({ yaml: readFileSync(file, "utf8"), controls: {}, ...RUN })),
      );
      expect(await settled()).toBe("done");
      const written = await lab;
      const advice = JSON.parse(written["advice.json"] ?? "null");
      expect(await pageVerdict()).toMatchObject({ recommended: advice.recommended?.name ?? "" });
      await expectLabFiles(written);
      expect(problems).toEqual([]);
    },
    RUN_TIMEOUT,
  );

  it("shows a broken YAML's error at its line, with the CLI's message", {
    timeout: RUN_TIMEOUT,
  }, async () => {
    const broken = FLEET.replace("  nodes: 12\n  storage: ssd", '  nodes: "twelve"\n  storage: ssd');
    let cliMessage = "";
    try {
      parseScenario(broken);
    } catch (error) {
      cliMessage = (error as Error).message;
    }
    // From a fresh load of the link (not a same-page fragment change): the edit cancels the run it starts.
    await page.goto("about:blank");
    await page.goto(base + (await shareFragment(request)));
    await page.waitForFunction(`document.body.dataset.state === "running"`);
    await page.locator("#yaml").fill(broken);
    await page.waitForFunction(`document.body.dataset.state === "invalid"`, null, { timeout: RUN_TIMEOUT });
    const line = broken.split("\n").findIndex((text) => text.includes('nodes: "twelve"')) + 1;
    const item = page.locator('#problems li[data-path="cluster.nodes"]');
    expect(await item.getAttribute("data-line")).toBe(String(line));
    const message = (await item.textContent())!.replace(/^line \d+ · cluster\.nodes/, "");
    expect(cliMessage).toContain(message);
    expect(await page.locator("#gutter .bad").allTextContents()).toContain(String(line));
  });

  it("cancels a run: the page stays responsive, no stale result lands, and the runs it finished are kept", {
    timeout: RUN_TIMEOUT * 2,
  }, async () => {
    await page.goto("about:blank");
    await page.goto(base + (await shareFragment(request)));
    // `keyspread studio` isolates the page, so it shares a WantedRun with its worker.
    expect(await page.evaluate("crossOriginIsolated")).toBe(true);
    await page.waitForFunction(
      `document.getElementById("progress").dataset.phase === "designs" && Number(document.getElementById("progress").dataset.index) >= 2`,
      null,
      { timeout: RUN_TIMEOUT, polling: 50 },
    );
    await page.locator("#cancel").click();
    expect(await settled()).toBe("cancelled");
    // The page answers while nothing runs, and the cancelled run's result never lands.
    expect(await state()).toBe("cancelled");
    expect(await page.locator("#cancel").isDisabled()).toBe(true);
    // The same scenario again: the worker kept the designs it had simulated before the cancel.
    await page.locator("#yaml").fill(FLEET);
    await page.waitForFunction(`document.body.dataset.state === "running"`);
    expect(await settled()).toBe("done");
    expect(Number(await page.evaluate<string>("document.body.dataset.remembered"))).toBeGreaterThanOrEqual(2);
    expect(problems).toEqual([]);
  });
});

#!/usr/bin/env node
/**
 * Profiles the studio page during bench/studio.ts's one-design change on the fleet (one listed
 * design's salt buckets, 16 → 32, after the first run): a CPU profile of the Web Worker and of the
 * page's main thread (Chrome DevTools Protocol, the worker reached through Target auto-attach), and
 * the CPU seconds each renderer thread spent, read from /proc, which unlike wall time hardly moves
 * when other work shares the machine.
 *
 *   npm run build --silent
 *   node scripts/studio-profile.mjs [--page DIR] [--duration S] [--out PREFIX]
 *
 * DIR is a static build of the page (default dist/studio-page; pass another build to compare two),
 * S the simulated seconds (default 3600), PREFIX where the profiles go (PREFIX.worker.cpuprofile and
 * PREFIX.main.cpuprofile; default none, timings only). Open a profile in Chrome DevTools'
 * Performance panel, or aggregate it by function. Linux only (/proc); Debian's chromium.
 */
import { readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";

const root = fileURLToPath(new URL("..", import.meta.url));
const { values } = parseArgs({
  options: {
    page: { type: "string", default: join(root, "dist/studio-page") },
    duration: { type: "string", default: "3600" },
    out: { type: "string" },
  },
});
const { shareFragment } = await import(join(root, "dist/studio/share-link.js"));

const TYPES = { ".js": "text/javascript", ".css": "text/css", ".html": "text/html" };
const server = createServer(async (request, response) => {
  const path = new URL(request.url ?? "/", "http://page").pathname;
  try {
    const body = readFileSync(join(values.page, path === "/" ? "index.html" : path));
    response.writeHead(200, {
      "content-type": TYPES[extname(path) || ".html"] ?? "application/octet-stream",
    });
    response.end(body);
  } catch {
    response.writeHead(404).end();
  }
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));

/** Whether process `pid` is this script's descendant (other browsers on the machine are not ours). */
function ours(pid) {
  for (let current = pid, hops = 0; current !== "1" && hops < 10; hops++) {
    if (current === String(process.pid)) return true;
    try {
      const stat = readFileSync(`/proc/${current}/stat`, "utf8");
      current = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1];
    } catch {
      return false;
    }
  }
  return false;
}

/** CPU seconds of our renderers' threads: the worker, the main thread, V8's pool (GC, compiling), the rest. */
function rendererCpu() {
  const seconds = { worker: 0, main: 0, pool: 0, other: 0 };
  for (const pid of readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
    let command;
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {
      continue;
    }
    if (!command.includes("--type=renderer") || !ours(pid)) continue;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const kind = name.startsWith("DedicatedWorker")
        ? "worker"
        : name === "chromium" || name === "CrRendererMain"
          ? "main"
          : name.startsWith("ThreadPoolForeg")
            ? "pool"
            : "other";
      seconds[kind] += (Number(fields[11]) + Number(fields[12])) / 100;
    }
  }
  return seconds;
}

const DONE = `["done", "invalid", "failed"].includes(document.body.dataset.state)`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const cdp = await page.context().newCDPSession(page);
  const workers = [];
  const replies = new Map();
  let nextId = 1;
  cdp.on("Target.attachedToTarget", (event) => {
    if (event.targetInfo.type === "worker") workers.push(event.sessionId);
  });
  cdp.on("Target.receivedMessageFromTarget", (event) => {
    const message = JSON.parse(event.message);
    replies.get(message.id)?.(message);
    replies.delete(message.id);
  });
  /** A DevTools command to the worker, through the page's session (flatten: false). */
  const toWorker = (method, params = {}) =>
    new Promise((resolve) => {
      const id = nextId++;
      replies.set(id, resolve);
      cdp.send("Target.sendMessageToTarget", {
        sessionId: workers.at(-1),
        message: JSON.stringify({ id, method, params }),
      });
    });
  await cdp.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });

  const yaml = readFileSync(join(root, "examples/fleet-hotspot.yaml"), "utf8");
  const request = { yaml, controls: {}, durationS: Number(values.duration), sensitivity: false };
  const base = `http://127.0.0.1:${server.address().port}/`;
  await page.goto(base + (await shareFragment(request)));
  await page.waitForFunction(DONE, null, { timeout: 0, polling: 250 });
  if (workers.length === 0) throw new Error("no worker attached: is the page's run in a Web Worker?");
  await page.locator("#c-design").selectOption("salt-16-by-deviceID+ts");
  await page.locator("#c-buckets").fill("32");
  if (values.out) {
    for (const send of [toWorker, (method, params) => cdp.send(method, params)]) {
      await send("Profiler.enable", {});
      await send("Profiler.setSamplingInterval", { interval: 500 });
      await send("Profiler.start", {});
    }
  }
  const before = rendererCpu();
  const started = Date.now();
  await page.locator("#c-buckets").dispatchEvent("change");
  await page.waitForFunction(`document.body.dataset.state === "running"`);
  await page.waitForFunction(DONE, null, { timeout: 0, polling: 100 });
  const changeMs = Date.now() - started;
  const after = rendererCpu();
  if (values.out) {
    const worker = await toWorker("Profiler.stop");
    await writeFile(`${values.out}.worker.cpuprofile`, JSON.stringify(worker.result.profile));
    const main = await cdp.send("Profiler.stop");
    await writeFile(`${values.out}.main.cpuprofile`, JSON.stringify(main.profile));
  }
  const state = await page.evaluate("({ ...document.body.dataset })");
  const cpu = Object.fromEntries(
    Object.keys(after).map((kind) => [kind, +(after[kind] - before[kind]).toFixed(2)]),
  );
  console.log(
    JSON.stringify({
      page: values.page,
      simulatedS: request.durationS,
      state: state.state,
      changeS: changeMs / 1000,
      workerS: Number(state.workerMs) / 1000,
      cpuS: cpu,
      runs: { simulated: Number(state.simulated), remembered: Number(state.remembered) },
    }),
  );
} finally {
  await browser.close();
  server.close();
}

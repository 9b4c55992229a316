/**
 * The studio page: the YAML and the controls in, a run in a Web Worker, the verdict, comparison,
 * CPU chart and heatmaps out. Every change goes to the same worker, whose memo of the simulator's
 * runs makes it re-run only what the change affects. A change or a cancel while a run is in flight
 * stops that run: through the shared WantedRun when the page is cross-origin isolated (the worker
 * stops at its next step and keeps its memo), else by terminating the worker and starting a fresh
 * one. The URL's fragment always carries the current request, so a copied link reproduces the run.
 */

import type { SimulationMemoStats } from "../../lab/simulation-memo.js";
import type { ControlValues, StudioControls } from "../controls.js";
import type { ScenarioProblem } from "../scenario-problems.js";
import { requestOfFragment, shareFragment } from "../share-link.js";
import type { StudioRequest } from "../studio-run.js";
import { changedControls, renderControls } from "./controls-panel.js";
import { DEFAULT_EXAMPLE, EXAMPLES } from "./examples.js";
import type { ShownJudged, ShownOutcome } from "./posted-outcome.js";
import { showComparison, showHeatmaps, showJudged } from "./results-view.js";
import type { PageMessage, WorkerMessage } from "./studio-messages.js";
import { WantedRun } from "./wanted-run.js";

/** Typing pauses this long before a run starts. */
const EDIT_PAUSE_MS = 400;

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const yaml = byId<HTMLTextAreaElement>("yaml");
const gutter = byId<HTMLPreElement>("gutter");
const problems = byId<HTMLUListElement>("problems");
const form = byId<HTMLFormElement>("controls");
const status = byId<HTMLSpanElement>("status");
const progress = byId<HTMLProgressElement>("progress");
const cancel = byId<HTMLButtonElement>("cancel");
const exportsBar = byId<HTMLSpanElement>("exports");

/** Which run the page wants, shared with the worker; none where the browser shares no memory (not cross-origin isolated). */
const wanted = globalThis.crossOriginIsolated ? new WantedRun() : undefined;

const state: {
  request: StudioRequest;
  values?: ControlValues;
  worker?: Worker;
  /** Runs sent to the worker that have not ended (done, failed or cancelled). */
  inFlight: number;
  /** The request the worker runs or last ran, as JSON: the same request again re-runs nothing. */
  ran?: string;
  runId: number;
  judged?: ShownJudged;
  compared?: [string, string];
  downloads: string[];
} = { request: { yaml: "", controls: {} }, inFlight: 0, runId: 0, downloads: [] };

function setState(name: "running" | "done" | "invalid" | "cancelled" | "failed", text: string): void {
  document.body.dataset.state = name;
  status.textContent = text;
  cancel.disabled = name !== "running";
}

function stopWorker(): void {
  state.worker?.terminate();
  state.worker = undefined;
  state.inFlight = 0;
  state.ran = undefined;
}

/**
 * The worker for the next run: the one there is (its memo kept) when it is idle or the page can ask
 * its run to stop, else a fresh one.
 */
function workerForRun(): Worker {
  if (state.worker && (state.inFlight === 0 || wanted)) return state.worker;
  stopWorker();
  const worker = new Worker(new URL("./worker.ts", import.meta.url), { type: "module" });
  if (wanted) worker.postMessage({ type: "share", wanted: wanted.buffer } satisfies PageMessage);
  worker.onmessage = (event: MessageEvent<WorkerMessage>) => {
    const message = event.data;
    if (message.type === "done" || message.type === "failed" || message.type === "cancelled")
      state.inFlight--;
    // Only a run the page no longer wants stops (cancelled), and no longer wanted means not this id.
    if (message.id !== state.runId) return;
    received(message);
  };
  worker.onerror = (event) => {
    stopWorker();
    setState("failed", `The run failed: ${event.message}`);
  };
  state.worker = worker;
  return worker;
}

function run(): void {
  // A change event that changes nothing (an edited input losing focus as the form is drawn again)
  // keeps the run in flight, or the result on show.
  const ran = JSON.stringify(state.request);
  if (state.worker && state.ran === ran) return;
  const worker = workerForRun();
  state.ran = ran;
  const id = ++state.runId;
  // Before the message: the run in flight, if any, stops at its next step.
  wanted?.want(id);
  state.inFlight++;
  progress.value = 0;
  setState("running", "running…");
  worker.postMessage({ type: "run", id, request: state.request } satisfies PageMessage);
  void shareFragment(state.request).then((fragment) => {
    if (id === state.runId) history.replaceState(null, "", fragment);
  });
}

function received(message: WorkerMessage): void {
  switch (message.type) {
    case "controls":
      state.values = message.controls;
      renderControls(form, message.controls, state.request.controls);
      return;
    case "progress": {
      const { phase, name, index, count, doneS, totalS } = message.progress;
      progress.value = (index + (totalS > 0 ? doneS / totalS : 0)) / Math.max(count, 1);
      // For the tests: where the run is (runs before `index` in this phase have finished).
      progress.dataset.phase = phase;
      progress.dataset.index = String(index);
      status.textContent = `${phase}: ${name} (${index + 1} of ${count})`;
      return;
    }
    case "failed":
      state.ran = undefined;
      setState("failed", `The run failed: ${message.message}`);
      return;
    case "done":
      finished(message.outcome, message.ms, message.runs);
      return;
    case "files":
      showHeatmaps(offerExports(message.files)["heatmaps.html"]);
  }
}

function finished(outcome: ShownOutcome, ms: number, runs: SimulationMemoStats): void {
  // For the bench and the curious: how much of the judgement this change re-ran.
  document.body.dataset.workerMs = String(Math.round(ms));
  document.body.dataset.simulated = String(runs.runs);
  document.body.dataset.remembered = String(runs.hits);
  progress.value = 1;
  if (outcome.kind === "invalid") {
    showProblems(outcome.problems);
    setState(
      "invalid",
      `${outcome.problems.length} problem${outcome.problems.length === 1 ? "" : "s"} in the scenario`,
    );
    return;
  }
  showProblems([]);
  state.judged = outcome;
  showJudged(outcome, state.compared);
  // The files follow: until they come, the last run's are withdrawn and its heatmaps marked as old.
  offerExports({});
  showHeatmaps(undefined);
  setState(
    "done",
    `judged in ${(ms / 1000).toFixed(1)} s (${runs.runs} simulation${runs.runs === 1 ? "" : "s"} run, ${runs.hits} remembered)`,
  );
}

function showProblems(list: readonly ScenarioProblem[]): void {
  const bad = new Set(list.map((problem) => problem.line).filter((line) => line !== undefined));
  const count = yaml.value.split("\n").length;
  gutter.innerHTML = Array.from({ length: count }, (_, index) =>
    bad.has(index + 1) ? `<span class="bad">${index + 1}</span>` : String(index + 1),
  ).join("\n");
  problems.replaceChildren(
    ...list.map((problem) => {
      const item = document.createElement("li");
      if (problem.line !== undefined) item.dataset.line = String(problem.line);
      if (problem.path !== undefined) item.dataset.path = problem.path;
      const where = document.createElement("span");
      where.className = "where";
      where.textContent = [problem.line === undefined ? "" : `line ${problem.line}`, problem.path ?? ""]
        .filter((part) => part !== "")
        .join(" · ");
      item.append(...(where.textContent === "" ? [] : [where]), problem.message);
      item.onclick = () => selectLine(problem.line);
      return item;
    }),
  );
}

function selectLine(line: number | undefined): void {
  if (line === undefined) return;
  const lines = yaml.value.split("\n");
  const start = lines.slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0);
  yaml.focus();
  yaml.setSelectionRange(start, start + lines[line - 1]!.length);
}

/** Download links for the files, by name; the previous run's URLs are let go. */
function offerExports(files: Record<string, Blob>): Record<string, string> {
  for (const url of state.downloads) URL.revokeObjectURL(url);
  const urls = Object.fromEntries(
    Object.entries(files).map(([name, blob]) => [name, URL.createObjectURL(blob)]),
  );
  state.downloads = Object.values(urls);
  exportsBar.replaceChildren(
    "export:",
    ...Object.entries(urls).map(([name, url]) => {
      const link = document.createElement("a");
      link.href = url;
      link.download = name;
      link.textContent = name;
      return link;
    }),
  );
  return urls;
}

function sizeEditor(): void {
  yaml.style.height = `${yaml.value.split("\n").length * 16 + 8}px`;
  if (document.body.dataset.state !== "invalid") showProblems([]);
}

/** A new scenario text: the controls start again from its values. */
function load(
  text: string,
  controls: StudioControls = {},
  options: Omit<StudioRequest, "yaml" | "controls"> = {},
): void {
  yaml.value = text;
  sizeEditor();
  state.request = { ...options, yaml: text, controls };
  run();
}

let editTimer: ReturnType<typeof setTimeout> | undefined;
yaml.addEventListener("input", () => {
  sizeEditor();
  clearTimeout(editTimer);
  editTimer = setTimeout(() => {
    state.request = { ...state.request, yaml: yaml.value };
    run();
  }, EDIT_PAUSE_MS);
});

form.addEventListener("change", (event) => {
  if (!state.values) return;
  const target = event.target as HTMLElement;
  if (target.dataset.control === "design") {
    // Picking a design shows its salt and batching; it changes nothing by itself.
    const { design: _, saltBuckets: _b, saltFields: _f, batch: _t, ...rest } = state.request.controls;
    renderControls(form, state.values, { ...rest, design: (target as HTMLSelectElement).value });
    return;
  }
  state.request = { ...state.request, controls: changedControls(form, state.values) };
  run();
});
form.addEventListener("submit", (event) => event.preventDefault());

byId("compare").addEventListener("change", () => {
  if (!state.judged) return;
  const a = byId<HTMLSelectElement>("compare-a").value;
  const b = byId<HTMLSelectElement>("compare-b").value;
  state.compared = [a, b];
  showComparison(state.judged.designs, state.compared);
});

cancel.addEventListener("click", () => {
  if (wanted) {
    wanted.wantNone();
    state.ran = undefined;
  } else stopWorker();
  state.runId++;
  setState("cancelled", "cancelled: change the scenario or a control to run again");
});

byId("share").addEventListener("click", () => {
  void navigator.clipboard?.writeText(location.href).then(() => {
    status.textContent = "link copied";
  });
});

const examples = byId<HTMLSelectElement>("example");
examples.innerHTML = Object.keys(EXAMPLES)
  .map((name) => `<option value="${name}">${name}</option>`)
  .join("");
/** The picker's value for a scenario that came with a link rather than from the bundled examples. */
const LINKED = "(link)";
examples.addEventListener("change", () => {
  const text = EXAMPLES[examples.value];
  if (text !== undefined) load(text);
});

async function openFile(file: File): Promise<void> {
  load(await file.text());
}
byId<HTMLInputElement>("file").addEventListener("change", (event) => {
  const file = (event.target as HTMLInputElement).files?.[0];
  if (file) void openFile(file);
});
document.addEventListener("dragover", (event) => event.preventDefault());
document.addEventListener("drop", (event) => {
  event.preventDefault();
  const file = event.dataTransfer?.files[0];
  if (file) void openFile(file);
});

/** The picker's entry for a linked scenario: its bundled example, else an entry that says it came from the link. */
function pickerEntry(text: string): string {
  const bundled = Object.keys(EXAMPLES).find((name) => EXAMPLES[name] === text);
  if (bundled) return bundled;
  const linked = document.createElement("option");
  linked.value = LINKED;
  linked.textContent = `from the link: ${scenarioName(text)}`;
  examples.prepend(linked);
  return LINKED;
}

/** The scenario's top-level `name:` as written (the page shows it before the worker has parsed the YAML). */
const scenarioName = (text: string): string =>
  /^name:\s*["']?([^"'\n#]*)/m.exec(text)?.[1]?.trim() || "unnamed";

async function start(): Promise<void> {
  try {
    const shared = await requestOfFragment(location.hash);
    if (shared) {
      const { yaml: text, controls, ...options } = shared;
      examples.value = pickerEntry(text);
      load(text, controls, options);
      return;
    }
  } catch (error) {
    status.textContent = `The link's scenario could not be read (${(error as Error).message}); showing the fleet.`;
  }
  examples.value = DEFAULT_EXAMPLE;
  load(EXAMPLES[DEFAULT_EXAMPLE]!);
}
void start();

/**
 * The studio's Web Worker: runs studio runs (the lab's judgement, then the files) off the page's
 * thread and reports progress. It keeps a memo of the simulator's runs from one run to the next, so
 * a change re-simulates only the designs it touches. The judgement is synchronous: the page cancels
 * a run by terminating this worker (and its memo) and starting another.
 */
import "./buffer-global.js";
import { SimulationMemo } from "../../lab/simulation-memo.js";
import { loadScenarioDocument } from "../../sim/scenario/scenario.js";
import { controlsOf } from "../controls.js";
import { runStudio } from "../studio-run.js";
import { fileBlobs, shownOutcome } from "./posted-outcome.js";
import type { RunMessage, WorkerMessage } from "./studio-messages.js";

/** At most one progress message per this many ms: enough for a smooth bar, few enough to stay cheap. */
const PROGRESS_EVERY_MS = 100;

const memo = new SimulationMemo();

const post = (message: WorkerMessage) => (self as unknown as Worker).postMessage(message);

self.onmessage = (event: MessageEvent<RunMessage>) => {
  const { id, request } = event.data;
  const started = performance.now();
  const before = { ...memo.stats };
  try {
    try {
      post({ type: "controls", id, controls: controlsOf(loadScenarioDocument(request.yaml)) });
    } catch {
      // Not YAML: the run below reports the CLI's error at its line.
    }
    let last = 0;
    const outcome = runStudio(request, {
      simulate: memo.simulate,
      onProgress: (progress) => {
        const now = performance.now();
        if (now - last < PROGRESS_EVERY_MS) return;
        last = now;
        post({ type: "progress", id, progress });
      },
    });
    const runs = { hits: memo.stats.hits - before.hits, runs: memo.stats.runs - before.runs };
    post({ type: "done", id, outcome: shownOutcome(outcome), ms: performance.now() - started, runs });
    if (outcome.kind === "judged") post({ type: "files", id, files: fileBlobs(outcome.files) });
  } catch (error) {
    post({ type: "failed", id, message: (error as Error).message });
  }
};

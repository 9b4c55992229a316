/**
 * The studio's Web Worker: runs studio runs (the lab's judgement, then the files) off the page's
 * thread and reports progress. It keeps a memo of the simulator's runs from one run to the next, so
 * a change re-simulates only the designs it touches. The judgement is synchronous, so the worker
 * hears of a newer request only between runs: when the page shares a WantedRun, the run in flight
 * reads it at every simulation and step and stops once the page wants another, the memo kept;
 * without one, the page terminates the worker (and its memo) instead.
 */
import "./buffer-global.js";
import { SimulationMemo } from "../../lab/simulation-memo.js";
import { SimulationCancelled } from "../../sim/results/simulation-cancelled.js";
import { loadScenarioDocument } from "../../sim/scenario/scenario.js";
import { controlsOf } from "../controls.js";
import { runStudio } from "../studio-run.js";
import { fileBlobs, shownOutcome } from "./posted-outcome.js";
import type { PageMessage, WorkerMessage } from "./studio-messages.js";
import { WantedRun } from "./wanted-run.js";

/** At most one progress message per this many ms: enough for a smooth bar, few enough to stay cheap. */
const PROGRESS_EVERY_MS = 100;

const memo = new SimulationMemo();
let wanted: WantedRun | undefined;

const post = (message: WorkerMessage) => (self as unknown as Worker).postMessage(message);

self.onmessage = (event: MessageEvent<PageMessage>) => {
  if (event.data.type === "share") {
    wanted = new WantedRun(event.data.wanted);
    return;
  }
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
      simulate: wanted ? wanted.simulateFor(id, memo.simulate) : memo.simulate,
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
    post(
      error instanceof SimulationCancelled
        ? { type: "cancelled", id }
        : { type: "failed", id, message: (error as Error).message },
    );
  }
};

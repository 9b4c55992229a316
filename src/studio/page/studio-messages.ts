/** The messages between the page and its Web Worker (one run per id; a newer id replaces an older run). */
import type { JudgeScenarioProgress } from "../../lab/judge.js";
import type { SimulationMemoStats } from "../../lab/simulation-memo.js";
import type { ControlValues } from "../controls.js";
import type { StudioRequest } from "../studio-run.js";
import type { ShownOutcome } from "./posted-outcome.js";

export interface RunMessage {
  type: "run";
  id: number;
  request: StudioRequest;
}

/** Sent once, first, when the page can share memory: the cell of a WantedRun (src/studio/page/wanted-run.ts). */
export interface ShareMessage {
  type: "share";
  wanted: SharedArrayBuffer;
}

export type PageMessage = ShareMessage | RunMessage;

export type WorkerMessage =
  | { type: "controls"; id: number; controls: ControlValues }
  | { type: "progress"; id: number; progress: JudgeScenarioProgress }
  | {
      type: "done";
      id: number;
      outcome: ShownOutcome;
      ms: number;
      /** This run's simulations: those simulated, and those the worker's memo answered. */
      runs: SimulationMemoStats;
    }
  /** A judged run's files, after its "done": what `lab --out` writes, plus the scenario as run. */
  | { type: "files"; id: number; files: Record<string, Blob> }
  | { type: "failed"; id: number; message: string }
  /** The run stopped because the page wanted another (its finished simulations stay in the memo). */
  | { type: "cancelled"; id: number };

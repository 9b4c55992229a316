/** The messages between the page and its Web Worker (one run per id; a newer id replaces an older run). */
import type { JudgeScenarioProgress } from "../../lab/judge.js";
import type { SimulationMemoStats } from "../../lab/simulation-memo.js";
import type { ControlValues } from "../controls.js";
import type { StudioOutcome, StudioRequest } from "../studio-run.js";

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
      outcome: StudioOutcome;
      ms: number;
      /** This run's simulations: those simulated, and those the worker's memo answered. */
      runs: SimulationMemoStats;
    }
  | { type: "failed"; id: number; message: string }
  /** The run stopped because the page wanted another (its finished simulations stay in the memo). */
  | { type: "cancelled"; id: number };

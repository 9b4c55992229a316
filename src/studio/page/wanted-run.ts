/**
 * Which run the page still wants, in memory the page and its worker share (a SharedArrayBuffer).
 * The worker's judgement is synchronous, so a "cancel" message would wait until the run ended; the
 * worker reads this cell between and during simulations instead, and stops a run the page no longer
 * wants. Stopping, not terminating, keeps the worker's memo of the runs it finished. Browsers give a
 * page shared memory only when it is cross-origin isolated (`keyspread studio` sends the headers);
 * elsewhere the page terminates the worker, as before.
 */
import type { SimulateOptions, simulateScenario } from "../../sim/results/simulate.js";
import { SimulationCancelled } from "../../sim/results/simulation-cancelled.js";

/** No run: what the page wants after a cancel. */
const NONE = 0;

export class WantedRun {
  private readonly cell: Int32Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)) {
    this.cell = new Int32Array(buffer);
  }

  /** The page: from now on only run `id` is wanted. */
  want(id: number): void {
    Atomics.store(this.cell, 0, id);
  }

  /** The page: no run is wanted. */
  wantNone(): void {
    this.want(NONE);
  }

  /** The worker: throws SimulationCancelled once run `id` is no longer wanted. */
  check(id: number): void {
    if (Atomics.load(this.cell, 0) !== id) throw new SimulationCancelled();
  }

  /**
   * The simulator for run `id`: it stops before a simulation, and at each step's progress during
   * one, once the page wants another run. A stopped simulation returns nothing, so a memo behind
   * `simulate` keeps only finished runs.
   */
  simulateFor(id: number, simulate: typeof simulateScenario): typeof simulateScenario {
    return (scenario, options: SimulateOptions = {}) => {
      this.check(id);
      return simulate(scenario, {
        ...options,
        onProgress: (progress) => {
          this.check(id);
          options.onProgress?.(progress);
        },
      });
    };
  }
}

/**
 * A memo of the simulator for judgements made again and again (the studio's worker, one change at
 * a time): each run is keyed by exactly what the simulator reads, the scenario it is given (the
 * advisor gives it one design, on its nodes, with the reads placed for it) and the run's options,
 * so changing one design re-simulates only that design's runs, and the rest come back as they were.
 * The simulator is pure, so a remembered result is the result: the judgement, and so the verdict,
 * is the one the CLI makes without a memo.
 */
import type { SimulationResult } from "../sim/results/results.js";
import { type SimulateOptions, simulateScenario } from "../sim/results/simulate.js";
import type { Scenario } from "../sim/scenario/scenario.js";

/** Runs remembered at most: the fleet's judgement (the largest bundled) makes about 40, so this holds two and more. */
const DEFAULT_CAPACITY = 100;

/** JSON that keeps what JSON would merge: non-finite numbers are not null. */
const keyOf = (scenario: Scenario, options: SimulateOptions): string => {
  const { onProgress: _, ...run } = options;
  return JSON.stringify([scenario, run], (_key, value: unknown) =>
    typeof value === "number" && !Number.isFinite(value) ? `number:${value}` : value,
  );
};

export interface SimulationMemoStats {
  /** Runs answered from the memo since it was made. */
  hits: number;
  /** Runs simulated since it was made. */
  runs: number;
}

export class SimulationMemo {
  /** In the order last used: the oldest go first when the memo is full. */
  private readonly results = new Map<string, SimulationResult>();
  readonly stats: SimulationMemoStats = { hits: 0, runs: 0 };

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  /** simulateScenario, remembered (a run seen before reports no progress: it takes no time). */
  readonly simulate = (scenario: Scenario, options: SimulateOptions = {}): SimulationResult => {
    const key = keyOf(scenario, options);
    const known = this.results.get(key);
    if (known) {
      this.stats.hits++;
      this.results.delete(key);
      this.results.set(key, known);
      return known;
    }
    this.stats.runs++;
    const result = simulateScenario(scenario, options);
    this.results.set(key, result);
    for (const oldest of this.results.keys()) {
      if (this.results.size <= this.capacity) break;
      this.results.delete(oldest);
    }
    return result;
  };
}

/**
 * Simulator speed: the seed-003 fleet scenario (2.4 M devices, 180,000 writes/s, 12 nodes) for one
 * simulated hour at 1 s steps in the fast engine, against the exact per-operation engine on the
 * same workload for a few simulated seconds (the baseline: what encoding every key would cost).
 */
import { readFileSync } from "node:fs";
import { SingleBar } from "cli-progress";
import { loadScenario } from "../src/sim/scenario.js";
import { type SimulateOptions, simulateScenario } from "../src/sim/simulate.js";

// Benchmarks run from the repository root (npm run bench:sim).
const SCENARIO = "examples/fleet-hotspot.yaml";
const DESIGN = "current";
const FAST_S = 3600;
const EXACT_S = 5;

const scenario = loadScenario(readFileSync(SCENARIO, "utf8"));

function timed(label: string, options: SimulateOptions & { durationS: number }): number {
  const bar = process.stderr.isTTY
    ? new SingleBar({ format: `${label} [{bar}] {percentage}%`, stream: process.stderr })
    : undefined;
  bar?.start(options.durationS, 0);
  const started = performance.now();
  simulateScenario(scenario, { ...options, onProgress: (p) => bar?.update(p.doneS) });
  const wallS = (performance.now() - started) / 1000;
  bar?.stop();
  return wallS;
}

const fastWallS = timed("fast, 1 h", { design: DESIGN, durationS: FAST_S, mode: "fast" });
const exactWallS = timed(`exact, ${EXACT_S} s`, { design: DESIGN, durationS: EXACT_S, mode: "exact" });
const fastRate = FAST_S / fastWallS;
const exactRate = EXACT_S / exactWallS;

console.log(`fleet-hotspot/${DESIGN}, fast engine: ${FAST_S} simulated s in ${fastWallS.toFixed(2)} s wall`);
console.log(
  `fleet-hotspot/${DESIGN}, exact engine: ${EXACT_S} simulated s in ${exactWallS.toFixed(2)} s wall`,
);
console.log(
  `bench sim: fleet_wall_s=${fastWallS.toFixed(2)} sim_s_per_wall_s=${Math.round(fastRate)} ` +
    `exact_sim_s_per_wall_s=${exactRate.toFixed(2)} fast_over_exact=${Math.round(fastRate / exactRate)}`,
);

/**
 * Simulator speed, against the exact per-operation engine in the same run:
 * - fleet: the fleet incident (2.4 M devices, 180,000 writes/s, 12 nodes), one simulated hour at
 *   1 s steps in the fast engine;
 * - scale: 10 M devices writing 1 M rows/s of 1 KB into a new unsalted table on 100 nodes for 3
 *   simulated hours (~11 TB: tens of thousands of tablets by size);
 * - baseline: the exact engine on the fleet for a few simulated seconds (what encoding every key
 *   would cost).
 */
import { readFileSync } from "node:fs";
import { SingleBar } from "cli-progress";
import { type SimulateOptions, simulateScenario } from "../src/sim/results/simulate.js";
import { parseScenario, type Scenario, validateScenario } from "../src/sim/scenario/scenario.js";
import { deviceKey } from "../src/sim/scenario/schemas.fixture.js";

// Benchmarks run from the repository root (npm run bench:sim).
const fleet = parseScenario(readFileSync("examples/fleet-hotspot.yaml", "utf8"));
const FLEET_S = 3600;
const SCALE_S = 3 * 3600;
const EXACT_S = 5;

const scale = validateScenario({
  name: "scale",
  cluster: { nodes: 100 },
  workload: {
    rowBytes: 1024,
    groups: [
      { name: "devices", entities: 10_000_000, fields: { deviceID: "{hex8:i}" }, writesPerS: 1_000_000 },
    ],
  },
  designs: [{ name: "hashed-ids", schema: deviceKey, table: "new" }],
});

function timed(label: string, scenario: Scenario, options: SimulateOptions & { durationS: number }) {
  const bar = process.stderr.isTTY
    ? new SingleBar({ format: `${label} [{bar}] {percentage}%`, stream: process.stderr })
    : undefined;
  bar?.start(options.durationS, 0);
  const started = performance.now();
  const result = simulateScenario(scenario, { ...options, onProgress: (p) => bar?.update(p.doneS) });
  const wallS = (performance.now() - started) / 1000;
  bar?.stop();
  return { wallS, design: result.designs[0]! };
}

const fleetRun = timed("fleet, fast, 1 h", fleet, { design: "as-is", durationS: FLEET_S, mode: "fast" });
const scaleRun = timed("scale, fast, 3 h", scale, { durationS: SCALE_S, mode: "fast" });
const exactRun = timed(`fleet, exact, ${EXACT_S} s`, fleet, {
  design: "as-is",
  durationS: EXACT_S,
  mode: "exact",
});
const rssMb = process.resourceUsage().maxRSS / 1024;
const fastRate = FLEET_S / fleetRun.wallS;
const exactRate = EXACT_S / exactRun.wallS;
const tablets = scaleRun.design.summary.tablets;

console.log(
  `fleet-hotspot/as-is, fast engine: ${FLEET_S} simulated s in ${fleetRun.wallS.toFixed(2)} s wall`,
);
console.log(
  `scale (10 M devices, 1 M writes/s, 100 nodes): ${SCALE_S} simulated s in ${scaleRun.wallS.toFixed(2)} s wall, ` +
    `${tablets.initial} → ${tablets.final} tablets (${tablets.loadSplits} load and ${tablets.sizeSplits} size splits, ${tablets.moves} moves), peak RSS ${Math.round(rssMb)} MB`,
);
console.log(
  `fleet-hotspot/as-is, exact engine: ${EXACT_S} simulated s in ${exactRun.wallS.toFixed(2)} s wall`,
);
console.log(
  `bench sim: fleet_wall_s=${fleetRun.wallS.toFixed(2)} scale_wall_s=${scaleRun.wallS.toFixed(2)} ` +
    `sim_s_per_wall_s=${Math.round(fastRate)} exact_sim_s_per_wall_s=${exactRate.toFixed(2)} ` +
    `fast_over_exact=${Math.round(fastRate / exactRate)} rss_mb=${Math.round(rssMb)}`,
);

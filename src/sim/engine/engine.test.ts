import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TabletMap } from "../cluster/tablets.js";
import { runEngine } from "./engine.js";
import {
  boundaries,
  CPU_PER_WRITE,
  RandomGenerator,
  type RandomLoad,
  ROW_BYTES,
  randomLoad,
  SETTINGS,
  writesPerS,
} from "./random-load.fixture.js";

const NODES = 3;
const DURATION_S = 300;
const SAMPLE_S = 40;
const JUDGED = [
  { fromS: 50, toS: 130 },
  { fromS: 200, toS: 215 },
];

function run(load: RandomLoad, starts: number[]) {
  return runEngine({
    tablets: new TabletMap(
      starts.map((key) => Buffer.of(key)),
      (index) => index % NODES,
      1,
      false,
    ),
    generator: new RandomGenerator(load),
    nodes: NODES,
    durationS: DURATION_S,
    stepS: 1,
    sampleS: SAMPLE_S,
    tabletSettings: SETTINGS,
    latency: { baseMs: 1, serviceMs: 0.5, queueBoundMs: 1000 },
    readPatterns: [],
    judged: JUDGED,
  });
}

/** Writes the load asks for over `[fromS, toS)` (one-second steps). */
const writesOver = (load: RandomLoad, fromS: number, toS: number) => {
  let sum = 0;
  for (let step = fromS; step < toS; step++) sum += writesPerS(load, step);
  return sum;
};

const close = (actual: number, expected: number) =>
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(expected)));

describe("the engine", () => {
  it("conserves the writes, CPU and bytes asked for through splits and moves", () => {
    fc.assert(
      fc.property(randomLoad, boundaries, (load, starts) => {
        const output = run(load, starts);
        const asked = writesOver(load, 0, DURATION_S);
        close(output.writes.perS * DURATION_S, asked);
        close(output.storedBytes, asked * ROW_BYTES);
        for (const point of output.timeline) {
          const seconds = Math.min(SAMPLE_S, DURATION_S - point.t);
          const writes = writesOver(load, point.t, point.t + seconds);
          close(point.writesPerS * seconds, writes);
          // Moves carry CPU between nodes; none is made or lost.
          close(point.averageNodeCpu * NODES * seconds, writes * CPU_PER_WRITE);
        }
        for (const step of output.loadSteps) {
          const rangeWrites = step.ranges.reduce((sum, range) => sum + range.writesPerS * step.durationS, 0);
          close(rangeWrites, writesOver(load, step.t, step.t + step.durationS));
        }
        const { tablets } = output;
        expect(tablets.final).toBe(
          tablets.initial + tablets.loadSplits + tablets.sizeSplits - tablets.merges,
        );
      }),
      { numRuns: 30 },
    );
  });

  it("samples the judged time whole, in pieces of at most a sample interval cut at each span's end", () => {
    const load: RandomLoad = {
      staticKeys: [{ key: 10, writesPerS: 100 }],
      multipliers: [1],
      bursts: [[]],
    };
    const { judged } = run(load, [128]);
    const spans = JUDGED.map(({ fromS, toS }) =>
      judged.filter((point) => point.t >= fromS && point.t + point.durationS <= toS),
    );
    expect(spans.flat()).toHaveLength(judged.length);
    spans.forEach((points, index) => {
      const span = JUDGED[index]!;
      expect(points.reduce((sum, point) => sum + point.durationS, 0)).toBe(span.toS - span.fromS);
      for (const point of points) expect(point.durationS).toBeLessThanOrEqual(SAMPLE_S);
    });
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateScenario } from "../scenario/scenario.js";
import { cpuNodesNeeded } from "./nodes-needed.js";
import { simulateSensitivity } from "./sensitivity.js";

const limits = { average: 0.7, hottest: 0.9, spreadRatio: 1.5 };

/** A steady state of `nodes` nodes: the hottest at `hottest`, the others sharing the rest of `total`. */
const state = fc
  .record({
    nodes: fc.integer({ min: 1, max: 200 }),
    total: fc.double({ min: 0, max: 100, noNaN: true }),
    hotShare: fc.double({ min: 0, max: 1, noNaN: true }),
  })
  .map(({ nodes, total, hotShare }) => {
    const average = total / nodes;
    const hottest = Math.min(total, average + hotShare * (total - average));
    const median = nodes === 1 ? hottest : (total - hottest) / (nodes - 1);
    return {
      nodes,
      total,
      steady: {
        averageNodeCpu: average,
        hottestNodeCpu: hottest,
        maxOverMedian: Math.max(hottest, 0.01) / Math.max(median, 0.01),
      },
    };
  });

describe("nodes needed for CPU", () => {
  it("is never fewer than the average limit allows, and never more than a cluster that meets the limits already has", () => {
    fc.assert(
      fc.property(state, ({ nodes, total, steady }) => {
        const needed = cpuNodesNeeded(steady, nodes, limits);
        if (needed === null) {
          expect(steady.hottestNodeCpu).toBeGreaterThan(limits.hottest);
          return;
        }
        expect(needed).toBeGreaterThanOrEqual(Math.max(1, Math.ceil(total / limits.average - 1e-9)));
        const meets = steady.averageNodeCpu <= limits.average && steady.hottestNodeCpu <= limits.hottest;
        if (meets && steady.maxOverMedian > limits.spreadRatio) expect(needed).toBeLessThanOrEqual(nodes);
      }),
    );
  });

  it("is one node for a load one node carries within both limits, spread over the cluster or on one range", () => {
    fc.assert(
      fc.property(state, ({ nodes, total, steady }) => {
        fc.pre(total <= limits.average);
        expect(cpuNodesNeeded(steady, nodes, limits)).toBe(1);
      }),
    );
  });

  it("gives a light time-first load one node at every end of the model, not the nodes it ran on", () => {
    const scenario = validateScenario({
      name: "light-tail",
      duration: "20m",
      cluster: { nodes: 12 },
      workload: {
        rowBytes: 1024,
        groups: [{ name: "posts", entities: 1000, fields: { author: "a-{i:04}" }, writesPerS: 400 }],
      },
      designs: [
        {
          name: "time-first",
          table: "existing",
          schema: {
            version: 1,
            name: "ts-author",
            layout: "text",
            segments: [
              { field: "ts", codec: { type: "timestamp", unit: "ms" } },
              { field: "author", codec: { type: "string" } },
            ],
          },
        },
      ],
    });
    const { result, designs } = simulateSensitivity(scenario);
    expect(result.designs[0]!.summary.steadyState.hottestNodeCpu).toBeLessThan(0.1);
    expect(result.designs[0]!.summary.guidance.nodesNeeded.total).toBe(1);
    expect(designs[0]!.nodesNeeded).toEqual({ optimistic: 1, pessimistic: 1 });
  });
});

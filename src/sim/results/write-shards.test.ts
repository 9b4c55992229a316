import { describe, expect, it } from "vitest";
import { compileSchema } from "../../keys/index.js";
import { counterKey, hotCounter, shardedCounterKey } from "../scenario/hot-counter.fixture.js";
import { CompiledRead } from "../workload/reads.js";
import { CompiledGroup } from "../workload/workload.js";
import { simulateScenario } from "./simulate.js";
import { HOTTEST_CPU_LIMIT } from "./summary.js";

describe("write shards in the simulator", () => {
  it("one row over a node's capacity stays on one node; its shards split apart and stay under target", () => {
    // 30,000 writes/s of 256 B cost 30,000 × 0.625 / 14,000 ≈ 1.3 node-CPUs: one row cannot split.
    const scenario = hotCounter(30000, [
      { name: "one-row", schema: counterKey },
      { name: "one-row-on-8-nodes", schema: counterKey, nodes: 8 },
      { name: "sharded", schema: shardedCounterKey(4) },
    ]);
    const [plain, moreNodes, sharded] = simulateScenario(scenario, { durationS: 1800 }).designs;
    for (const result of [plain!, moreNodes!]) {
      expect(result.summary.hottestNodeCpu.last).toBeGreaterThan(1);
      expect(result.summary.steadyState.shedWriteShare).toBeGreaterThan(0.1);
    }
    expect(sharded!.summary.steadyState.hottestNodeCpu).toBeLessThan(HOTTEST_CPU_LIMIT);
    expect(sharded!.summary.steadyState.shedWriteShare).toBe(0);
  });

  it("a read of a sharded row costs one row per shard, in one range", () => {
    for (const count of [1, 2, 4, 16]) {
      const spec = count === 1 ? counterKey : shardedCounterKey(count);
      const group = new CompiledGroup(
        compileSchema(spec),
        {
          name: "global",
          entities: 1,
          fields: { counterId: "global" },
          writesPerS: 10,
          arrival: { kind: "steady" },
        },
        { name: "d", schema: spec },
        256,
        0,
      );
      const read = new CompiledRead(
        { name: "total", kind: "get", group: "global", perS: 1, window: 0 },
        group,
      );
      const planned = read.plan(0, 0, 0);
      expect({
        ranges: planned.starts.length,
        rows: planned.rowsPerRange,
        returned: planned.rowsReturned,
      }).toEqual({
        ranges: 1,
        rows: count,
        returned: 1,
      });
      expect(group.footprint(0)).toHaveLength(count);
    }
  });
});

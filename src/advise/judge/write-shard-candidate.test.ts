import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HOTTEST_CPU_LIMIT } from "../../sim/results/summary.js";
import { counterKey, hotCounter } from "../../sim/scenario/hot-counter.fixture.js";
import { adviseScenario } from "./advise.js";
import { enumerateCandidates } from "./candidates.js";
import { busiestRow, shardCount } from "./write-shard-candidate.js";

const hotCounterAsIs = (writesPerS: number) =>
  hotCounter(writesPerS, [{ name: "as-is", schema: counterKey, table: "existing" }]);

describe("the write-shard candidate", () => {
  it("brings each shard of the busiest row under the hottest node's target, with no shard to spare", () => {
    fc.assert(
      fc.property(fc.double({ min: 0.01, max: 200, noNaN: true }), (cpu) => {
        const row = { group: hotCounterAsIs(1).workload.groups[0]!, field: "counterId", writesPerS: 1, cpu };
        const count = shardCount(row);
        expect(count).toBeGreaterThanOrEqual(2);
        if (count < 256) expect(cpu / count).toBeLessThanOrEqual(HOTTEST_CPU_LIMIT);
        if (count > 2) expect(cpu / (count - 1)).toBeGreaterThan(HOTTEST_CPU_LIMIT);
      }),
    );
  });

  it("is proposed for a row over the hottest node's target, naming that row, and not for a row under it", () => {
    const hot = hotCounterAsIs(30000);
    const row = busiestRow(hot, hot.designs[0]!)!;
    // 30,000 writes/s of 256 B: 30,000 × 0.625 / 14,000 ≈ 1.34 of a node → 2 shards, and 4 for headroom.
    expect(row.group.name).toBe("global");
    const shardings = enumerateCandidates(hot, hot.designs[0]!, { nodes: 4 }).flatMap(
      (candidate) => candidate.design.schema.writeShards ?? [],
    );
    expect(shardings).toEqual([
      { count: 2, entities: [{ counterId: "global" }] },
      { count: 4, entities: [{ counterId: "global" }] },
    ]);
    const cool = hotCounterAsIs(10000);
    const none = enumerateCandidates(cool, cool.designs[0]!, { nodes: 4 }).filter(
      (candidate) => candidate.design.schema.writeShards,
    );
    expect(none).toEqual([]);
  });

  it("is what the advisor recommends for one hot row, where more nodes and salts fail", () => {
    const advice = adviseScenario(hotCounterAsIs(30000), { durationS: 1800, buckets: [8] });
    expect(advice.recommended?.candidate.changes.map((change) => change.kind)).toEqual(["write-shards"]);
    const salted = advice.candidates.find((each) => each.candidate.changes.some((c) => c.kind === "salt"));
    expect(salted?.kind === "judged" && salted.scores.hottestCpu).toBeGreaterThan(1);
  });
});

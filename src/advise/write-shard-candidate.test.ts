import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SchemaSpec } from "../keys/types.js";
import { validateScenario } from "../sim/scenario.js";
import { HOTTEST_CPU_LIMIT } from "../sim/summary.js";
import { adviseScenario } from "./advise.js";
import { enumerateCandidates } from "./candidates.js";
import { busiestRow, shardCount } from "./write-shard-candidate.js";

const counterKey: SchemaSpec = {
  version: 1,
  name: "counter",
  layout: "text",
  segments: [{ field: "counterId", codec: { type: "string" } }],
};

/**
 * One global counter at `writesPerS` beside 100,000 quiet ones, on 4 nodes. A counter overwrites
 * its cell (its family keeps one version); a 10 s retention stands in for that in the row-size model.
 */
function hotCounter(writesPerS: number, schema: SchemaSpec = counterKey) {
  return validateScenario({
    name: "hot-counter",
    duration: "30m",
    cluster: { nodes: 4 },
    workload: {
      rowBytes: 256,
      retention: "10s",
      groups: [
        { name: "global", entities: 1, fields: { counterId: "global" }, writesPerS },
        { name: "quiet", entities: 100000, fields: { counterId: "c-{hex8:i}" }, writesPerS: 4000 },
      ],
      reads: [{ name: "total", kind: "get", group: "global", perS: 10 }],
    },
    designs: [{ name: "as-is", schema, table: "existing" }],
  });
}

describe("the write-shard candidate", () => {
  it("brings each shard of the busiest row under the hottest node's target, with no shard to spare", () => {
    fc.assert(
      fc.property(fc.double({ min: 0.01, max: 200, noNaN: true }), (cpu) => {
        const row = { group: hotCounter(1).workload.groups[0]!, field: "counterId", writesPerS: 1, cpu };
        const count = shardCount(row);
        expect(count).toBeGreaterThanOrEqual(2);
        if (count < 256) expect(cpu / count).toBeLessThanOrEqual(HOTTEST_CPU_LIMIT);
        if (count > 2) expect(cpu / (count - 1)).toBeGreaterThan(HOTTEST_CPU_LIMIT);
      }),
    );
  });

  it("is proposed for a row over the hottest node's target, naming that row, and not for a row under it", () => {
    const hot = hotCounter(30000);
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
    const cool = hotCounter(10000);
    const none = enumerateCandidates(cool, cool.designs[0]!, { nodes: 4 }).filter(
      (candidate) => candidate.design.schema.writeShards,
    );
    expect(none).toEqual([]);
  });

  it("is what the advisor recommends for one hot row, where more nodes and salts fail", () => {
    const advice = adviseScenario(hotCounter(30000), { durationS: 1800, buckets: [8] });
    expect(advice.recommended?.candidate.changes.map((change) => change.kind)).toEqual(["write-shards"]);
    const salted = advice.candidates.find((each) => each.candidate.changes.some((c) => c.kind === "salt"));
    expect(salted?.scores?.hottestCpu).toBeGreaterThan(1);
  });
});

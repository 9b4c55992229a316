/** The one-hot-row workload of the simulator's and the advisor's write-shard tests (examples/hot-counter.yaml in small). */
import type { SchemaSpec } from "../../keys/types.js";
import { validateScenario } from "./scenario.js";

export const counterKey: SchemaSpec = {
  version: 1,
  name: "counter",
  layout: "text",
  segments: [{ field: "counterId", codec: { type: "string" } }],
};

/** The counter key with the global counter's writes over `count` rows. */
export const shardedCounterKey = (count: number): SchemaSpec => ({
  ...counterKey,
  name: `counter-${count}-shards`,
  writeShards: { count, entities: [{ counterId: "global" }] },
});

/**
 * One global counter at `writesPerS` beside 100,000 quiet ones, on 4 nodes. A counter overwrites
 * its cell (its family keeps one version); a 10 s retention stands in for that in the row-size model.
 */
export function hotCounter(writesPerS: number, designs: unknown[]) {
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
    designs,
  });
}

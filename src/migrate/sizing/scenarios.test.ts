/** The five migrations of scenarios.fixture.ts, answered before the model ran, against the model. */
import { describe, expect, it } from "vitest";
import { type MigrationRun, sizeMigration } from "./migration-sizing.js";
import { type Range, SIZING_SCENARIOS } from "./scenarios.fixture.js";

const DAY_S = 86_400;
const HOUR_S = 3_600;

function within(value: number | null | undefined, range: Range | undefined, what: string): void {
  if (range === undefined) return;
  expect(value, what).not.toBeNull();
  if (range.min !== undefined) expect(value!, what).toBeGreaterThanOrEqual(range.min);
  if (range.max !== undefined) expect(value!, what).toBeLessThanOrEqual(range.max);
}

describe("migration sizing: five scenarios answered by hand first", () => {
  for (const scenario of SIZING_SCENARIOS) {
    it(scenario.name, () => {
      const { input, expect: wanted } = scenario;
      const sizing = sizeMigration({
        rows: input.rows,
        storedBytes: input.storedBytes,
        cluster: {
          nodes: input.nodes,
          storage: "ssd",
          ...(input.averageCpu === undefined ? {} : { averageCpu: input.averageCpu }),
          pricePerNodeHour: 0.65,
          pricePerGbMonth: 0.17,
        },
        liveWritesPerS: input.liveWritesPerS,
        tasks: input.tasks,
        rowsPerSPerTask: input.rowsPerSPerTask,
        dataBoost: input.dataBoost,
        keepOldTableS: input.keepOldTableDays * DAY_S,
      });
      within(sizing.cpu.dualWrite, wanted.dualWriteAverageCpu, "dual-write CPU");
      within(sizing.storageNodes.oneTable, wanted.storageNodesOneTable, "storage nodes, one table");
      within(sizing.storageNodes.bothTables, wanted.storageNodesBothTables, "storage nodes, both tables");
      const checkRun = (
        run: MigrationRun,
        want: NonNullable<typeof wanted.atCurrentNodes> & { nodes?: Range },
        name: string,
      ) => {
        within(run.nodes, want.nodes, `${name} nodes`);
        within(run.rowsPerS, want.rowsPerS, `${name} rows/s`);
        within(run.backfillS === null ? null : run.backfillS / HOUR_S, want.backfillHours, `${name} hours`);
        within(run.tasksToSaturate, want.tasksToSaturate, `${name} tasks to saturate`);
        if (want.bound) expect(run.bound, `${name} bound`).toBe(want.bound);
      };
      if (wanted.atCurrentNodes) checkRun(sizing.onFewestNodes, wanted.atCurrentNodes, "fewest nodes");
      if (wanted.atRequestedRate) checkRun(sizing.atRequestedRate, wanted.atRequestedRate, "requested rate");
      const cost = sizing.onFewestNodes.cost;
      within(cost?.nodes, wanted.cost?.extraNodes, "extra nodes $");
      within(cost?.storage, wanted.cost?.storage, "storage $");
      within(
        cost?.dataBoostSpuHours === undefined ? undefined : cost.dataBoostSpuHours / 3,
        wanted.cost?.dataBoostSpuHoursBackfill,
        "Data Boost SPU-hours of the backfill",
      );
    });
  }
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AVERAGE_CPU_LIMIT } from "../../sim/results/summary.js";
import { type MigrationSizingInput, sizeMigration } from "./migration-sizing.js";

const inputs = fc.record({
  rows: fc.integer({ min: 1, max: 1e12 }),
  rowBytes: fc.integer({ min: 16, max: 64 * 1024 }),
  nodes: fc.integer({ min: 1, max: 200 }),
  averageCpu: fc.option(fc.double({ min: 0, max: 1.5, noNaN: true }), { nil: undefined }),
  liveWritesPerS: fc.integer({ min: 0, max: 2_000_000 }),
  tasks: fc.integer({ min: 1, max: 500 }),
  rowsPerSPerTask: fc.integer({ min: 100, max: 200_000 }),
  dataBoost: fc.boolean(),
  storage: fc.constantFrom("ssd" as const, "hdd" as const),
});

type Drawn = typeof inputs extends fc.Arbitrary<infer T> ? T : never;

function inputOf(value: Drawn): MigrationSizingInput {
  return {
    rows: value.rows,
    storedBytes: value.rows * value.rowBytes,
    cluster: {
      nodes: value.nodes,
      storage: value.storage,
      ...(value.averageCpu === undefined ? {} : { averageCpu: value.averageCpu }),
      pricePerNodeHour: 0.65,
      pricePerGbMonth: 0.17,
    },
    liveWritesPerS: value.liveWritesPerS,
    tasks: value.tasks,
    rowsPerSPerTask: value.rowsPerSPerTask,
    dataBoost: value.dataBoost,
    keepOldTableS: 7 * 86_400,
  };
}

const close = (a: number, b: number) =>
  expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(b)));

describe("migration sizing: the physics", () => {
  it("dual-write applies every live write twice: the write CPU doubles while it lasts", () => {
    fc.assert(
      fc.property(inputs, (drawn) => {
        const input = inputOf(drawn);
        const { cpu } = sizeMigration(input);
        close(cpu.dualWrite - cpu.today, cpu.liveWrites);
        if (input.cluster.averageCpu === undefined) close(cpu.dualWrite, 2 * cpu.liveWrites);
      }),
    );
  });

  it("more tasks never copy faster than the target's spare write capacity, and never slower", () => {
    fc.assert(
      fc.property(inputs, fc.integer({ min: 1, max: 10_000 }), (drawn, more) => {
        const input = inputOf(drawn);
        const sizing = sizeMigration(input);
        for (const run of [sizing.onFewestNodes, sizing.atRequestedRate]) {
          const spareUnits = Math.max(
            0,
            AVERAGE_CPU_LIMIT * run.nodes - sizing.cpu.dualWrite * input.cluster.nodes,
          );
          expect(run.rowsPerS * sizing.copyCost.write).toBeLessThanOrEqual(spareUnits * (1 + 1e-9) + 1e-12);
          expect(run.averageCpu).toBeLessThanOrEqual(
            Math.max(AVERAGE_CPU_LIMIT, sizing.cpu.dualWrite) + 1e-9,
          );
        }
        const moreTasks = sizeMigration({ ...input, tasks: input.tasks + more });
        expect(moreTasks.onFewestNodes.nodes).toBe(sizing.onFewestNodes.nodes);
        expect(moreTasks.onFewestNodes.rowsPerS).toBeGreaterThanOrEqual(sizing.onFewestNodes.rowsPerS);
        const spareUnits =
          AVERAGE_CPU_LIMIT * moreTasks.onFewestNodes.nodes - moreTasks.cpu.dualWrite * input.cluster.nodes;
        expect(moreTasks.onFewestNodes.rowsPerS * moreTasks.copyCost.write).toBeLessThanOrEqual(
          Math.max(0, spareUnits) * (1 + 1e-9) + 1e-12,
        );
      }),
    );
  });

  it("Data Boost reads take no cluster CPU: the copy costs the cluster its writes alone", () => {
    fc.assert(
      fc.property(inputs, (drawn) => {
        const boosted = sizeMigration({ ...inputOf(drawn), dataBoost: true });
        const onNodes = sizeMigration({ ...inputOf(drawn), dataBoost: false });
        expect(boosted.copyCost.read).toBe(0);
        expect(onNodes.copyCost.read).toBeGreaterThan(0);
        close(boosted.copyCost.write, onNodes.copyCost.write);
        const run = boosted.onFewestNodes;
        const units = boosted.cpu.dualWrite * drawn.nodes + run.rowsPerS * boosted.copyCost.write;
        close(run.averageCpu * run.nodes, units);
        // On the same nodes, reading through Data Boost never copies slower nor needs more nodes.
        expect(run.rowsPerS).toBeGreaterThanOrEqual(onNodes.onFewestNodes.rowsPerS * (1 - 1e-12));
        expect(boosted.atRequestedRate.nodes).toBeLessThanOrEqual(onNodes.atRequestedRate.nodes);
        expect(boosted.onFewestNodes.cost?.dataBoostSpuHours ?? 0).toBeGreaterThan(0);
        expect(onNodes.onFewestNodes.cost?.dataBoostSpuHours ?? 0).toBe(0);
      }),
    );
  });

  it("storage holds both tables until the old one is deleted: never fewer nodes than one table needs, at most one more than twice", () => {
    fc.assert(
      fc.property(inputs, (drawn) => {
        const sizing = sizeMigration(inputOf(drawn));
        expect(sizing.storageNodes.bothTables).toBeGreaterThanOrEqual(sizing.storageNodes.oneTable);
        expect(sizing.storageNodes.bothTables).toBeLessThanOrEqual(2 * sizing.storageNodes.oneTable);
        expect(sizing.onFewestNodes.nodes).toBeGreaterThanOrEqual(sizing.storageNodes.bothTables);
        expect(sizing.onFewestNodes.nodesAfterCutover).toBeGreaterThanOrEqual(sizing.storageNodes.bothTables);
      }),
    );
  });

  it("the requested rate's nodes carry it within 70 % average CPU", () => {
    fc.assert(
      fc.property(inputs, (drawn) => {
        const sizing = sizeMigration(inputOf(drawn));
        const run = sizing.atRequestedRate;
        expect(run.rowsPerS).toBe(sizing.requestedRowsPerS);
        expect(run.bound).toBe("tasks");
        expect(run.averageCpu).toBeLessThanOrEqual(AVERAGE_CPU_LIMIT + 1e-9);
        expect(run.nodes).toBeGreaterThanOrEqual(sizing.onFewestNodes.nodes);
      }),
    );
  });

  it("refuses bad input, naming the field", () => {
    const base = inputOf({
      rows: 10,
      rowBytes: 100,
      nodes: 1,
      averageCpu: undefined,
      liveWritesPerS: 0,
      tasks: 1,
      rowsPerSPerTask: 10,
      dataBoost: false,
      storage: "ssd",
    });
    const option = (field: string, value: number) =>
      expect.objectContaining({ name: "MigrateOptionError", field, value });
    expect(() => sizeMigration({ ...base, tasks: 0 })).toThrow(option("tasks", 0));
    expect(() => sizeMigration({ ...base, rows: -1 })).toThrow(option("rows", -1));
    expect(() => sizeMigration({ ...base, cluster: { ...base.cluster, nodes: 1.5 } })).toThrow(
      option("nodes", 1.5),
    );
    expect(() => sizeMigration({ ...base, rowsPerSPerTask: 0 })).toThrow(option("rowsPerSPerTask", 0));
  });
});

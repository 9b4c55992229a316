import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { simulateScenario } from "../results/simulate.js";
import { MINIMAL_SCENARIO } from "./minimal.fixture.js";
import { parseScenario, type ScenarioProblem, validateScenario } from "./scenario.js";

const minimal = MINIMAL_SCENARIO;

/** The ScenarioError `run` throws, with `problems` as given (each matched by the fields it names). */
const refusedWith = (run: () => unknown, ...problems: Partial<ScenarioProblem>[]) =>
  expect(run).toThrow(
    expect.objectContaining({
      name: "ScenarioError",
      problems: problems.map((problem) => expect.objectContaining(problem)),
    }),
  );

describe("validateScenario", () => {
  it("fills in the documented defaults and leaves the model's constants to the model", () => {
    const scenario = validateScenario(minimal);
    expect(scenario).toMatchObject({ duration: 3600, step: 1, sample: 60, start: "2026-01-01T00:00:00Z" });
    // Prices the scenario does not set are the price registry's (advise/size/prices.ts), so a report can tell them apart.
    expect(scenario.cluster).toEqual({ nodes: 2, storage: "ssd", nodeScalingFactor: 1, capacity: {} });
    expect(scenario.tablets).toEqual({ splits: "salt-buckets" });
    expect(scenario.latency).toEqual({});
    expect(scenario.workload.groups[0]!.arrival).toEqual({ kind: "steady" });
  });

  it("keeps the constants a scenario sets, and says what replaced the tablet-count throttle", () => {
    const scenario = validateScenario({
      ...minimal,
      cluster: { nodes: 2, capacity: { writesPerS: 9000 }, fixedCostShare: 1 },
      tablets: { rebalanceTime: "20m", splitBytes: 1e9 },
    });
    expect(scenario.cluster.capacity).toEqual({ writesPerS: 9000 });
    expect(scenario.tablets).toMatchObject({ rebalanceTime: 1200, splitBytes: 1e9 });
    refusedWith(() => validateScenario({ ...minimal, tablets: { movesPerPeriod: 4 } }), {
      field: "tablets.movesPerPeriod",
      kind: "check",
    });
    refusedWith(() => validateScenario({ ...minimal, tablets: { initial: 4 } }), {
      field: "tablets.initial",
      kind: "check",
    });
  });

  it("says how a new table was created: split points or the salt's buckets, per scenario or per design", () => {
    const scenario = validateScenario({
      ...minimal,
      tablets: { splits: 47 },
      designs: [{ ...minimal.designs[0], splits: "salt-buckets" }],
    });
    expect(scenario.tablets.splits).toBe(47);
    expect(scenario.designs[0]!.splits).toBe("salt-buckets");
    for (const splits of [-1, 1.5, "48", "salt", 70000]) {
      refusedWith(() => validateScenario({ ...minimal, tablets: { splits } }), {
        field: "tablets.splits",
        value: splits,
      });
    }
    refusedWith(() => validateScenario({ ...minimal, designs: [{ ...minimal.designs[0], splits: -2 }] }), {
      field: "designs.0.splits",
      value: -2,
    });
  });

  it("reads a oneOf range of whole numbers as the list it stands for, and refuses a bad range by name", () => {
    const withShard = (oneOf: unknown) =>
      validateScenario({
        ...minimal,
        workload: { groups: [{ ...minimal.workload.groups[0], fields: { id: "e{i}", shard: { oneOf } } }] },
      }).workload.groups[0]!.fields.shard;
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 1000 }), fc.nat(300), (from, span) => {
        const listed = Array.from({ length: span + 1 }, (_, index) => from + index);
        expect(withShard({ from, to: from + span })).toEqual(withShard(listed));
      }),
    );
    const refused = (oneOf: unknown, problem: Partial<ScenarioProblem>) =>
      expect(() => withShard(oneOf)).toThrow(
        expect.objectContaining({ name: "ScenarioError", problems: [expect.objectContaining(problem)] }),
      );
    const shard = "workload.groups.0.fields.shard.oneOf";
    refused({ from: 5, to: 4 }, { field: `${shard}.to`, kind: "check", value: { from: 5, to: 4 } });
    refused({ from: 0, to: 1.5 }, { field: `${shard}.to`, kind: "integer", value: 1.5 });
    // At most 65,536 values.
    refused({ from: 0, to: 70_000 }, { field: shard, kind: "check", value: { from: 0, to: 70_000 } });
  });

  it("reads durations in scenario fields", () => {
    const scenario = validateScenario({ ...minimal, duration: "1h30m", step: "2s" });
    expect([scenario.duration, scenario.step]).toEqual([5400, 2]);
    refusedWith(() => validateScenario({ ...minimal, duration: "soon" }), {
      field: "duration",
      value: "soon",
    });
  });

  it("takes an observed cluster that serves no reads, and refuses a negative rate", () => {
    const observed = { nodes: 2, averageCpu: 0.4, writesPerS: 5, readsPerS: 0 };
    expect(validateScenario({ ...minimal, observed }).observed?.readsPerS).toBe(0);
    refusedWith(() => validateScenario({ ...minimal, observed: { ...observed, readsPerS: -1 } }), {
      field: "observed.readsPerS",
      kind: "min_value",
      value: -1,
    });
  });

  it("names the field and what is allowed", () => {
    refusedWith(() => validateScenario({ ...minimal, cluster: { nodes: 0 } }), {
      field: "cluster.nodes",
      kind: "min_value",
      value: 0,
    });
    refusedWith(() => validateScenario({ ...minimal, cluster: { nodes: 2, storage: "nvme" } }), {
      field: "cluster.storage",
      kind: "picklist",
      value: "nvme",
    });
    expect(() =>
      validateScenario({
        ...minimal,
        workload: {
          ...minimal.workload,
          reads: [{ name: "r", kind: "latest", group: "nope", perS: 1, limit: 1 }],
        },
      }),
    ).toThrow(
      expect.objectContaining({
        name: "ScenarioError",
        problems: [
          expect.objectContaining({ field: "workload.reads.0.group", kind: "unknown-group", value: "nope" }),
        ],
      }),
    );
    refusedWith(() => validateScenario({ ...minimal, designs: [minimal.designs[0], minimal.designs[0]] }), {
      field: "designs.1.name",
      kind: "duplicate",
      value: "d",
    });
  });

  it("names an unknown key and the keys allowed beside it", () => {
    /** The refusal's `{at, allowed}` for each unknown key it lists. */
    const unknownKeys = (input: unknown) => {
      try {
        validateScenario(input);
      } catch (error) {
        const found = (error as Error).message.matchAll(/unknown key; allowed: (.*)\n\s*→ at (\S+)/g);
        return [...found].map(([, allowed, at]) => ({ at, allowed: allowed!.split(", ") }));
      }
      throw new Error("valid");
    };
    expect(unknownKeys({ ...minimal, cluster: { nodes: 2, node: 3 } })).toEqual([
      {
        at: "cluster.node",
        allowed: [
          "nodes",
          "storage",
          "pricePerNodeHour",
          "pricePerSsdGbMonth",
          "pricePerHddGbMonth",
          "capacity",
          "fixedCostShare",
          "scanFixedCostShare",
          "storageLimitBytes",
          "storageTarget",
          "pricePerInfrequentGbMonth",
          "nodeScalingFactor",
          "autoscaling",
          "tieredStorage",
        ],
      },
    ]);
    expect(unknownKeys({ ...minimal, tablets: { intial: 4 } })).toMatchObject([
      { at: "tablets.intial", allowed: expect.arrayContaining(["splits", "rebalanceTime"]) },
    ]);
    const group = { ...minimal.workload.groups[0], arrival: { kind: "burst", every: "1m", windw: "5s" } };
    expect(unknownKeys({ ...minimal, workload: { groups: [group] } })).toEqual([
      { at: "workload.groups.0.arrival.windw", allowed: ["kind", "every", "window"] },
    ]);
  });

  it("reports a key field no group can fill", () => {
    const scenario = validateScenario({
      ...minimal,
      designs: [
        {
          name: "d",
          schema: {
            version: 1,
            name: "k",
            layout: "text",
            segments: [
              { field: "tenant", codec: { type: "string" } },
              { field: "id", codec: { type: "string" } },
            ],
          },
        },
      ],
    });
    expect(() => simulateScenario(scenario, { durationS: 1 })).toThrow(
      expect.objectContaining({ name: "MissingKeyFieldError", design: "d", group: "g", field: "tenant" }),
    );
  });
});

describe("reads on Data Boost", () => {
  const withRead = (read: Record<string, unknown>) =>
    validateScenario({
      ...minimal,
      workload: {
        ...minimal.workload,
        reads: [{ name: "r", group: minimal.workload.groups[0]!.name, perS: 1, ...read }],
      },
    });

  it("are scans: a point read marked dataBoost is refused by name", () => {
    expect(withRead({ kind: "scan", window: "30d", dataBoost: true }).workload.reads[0]).toMatchObject({
      dataBoost: true,
    });
    for (const kind of [
      { kind: "get", window: "1d" },
      { kind: "latest", limit: 10 },
    ])
      refusedWith(() => withRead({ ...kind, dataBoost: true }), {
        field: "workload.reads.0.dataBoost",
        kind: "literal",
        value: true,
      });
  });

  it("need a staleness of at least Data Boost's ~35 minutes when one is stated", () => {
    refusedWith(() => withRead({ kind: "scan", window: "1d", dataBoost: true, staleness: "5m" }), {
      field: "workload.reads.0.staleness",
      kind: "data-boost-staleness",
      value: 300,
    });
    expect(
      withRead({ kind: "scan", window: "1d", dataBoost: true, staleness: "1h" }).workload.reads[0],
    ).toMatchObject({ staleness: 3600 });
  });
});

describe("reads a design cannot plan", () => {
  it("are rejected with the design and the reason", () => {
    const scenario = validateScenario({
      ...minimal,
      workload: {
        ...minimal.workload,
        reads: [{ name: "recent", kind: "latest", group: "g", perS: 1, limit: 5 }],
      },
      designs: [
        {
          name: "time-first",
          schema: {
            version: 1,
            name: "k",
            layout: "text",
            segments: [
              { field: "ts", codec: { type: "timestamp", unit: "ms" } },
              { field: "id", codec: { type: "string" } },
            ],
          },
        },
      ],
    });
    expect(() => simulateScenario(scenario, { durationS: 1 })).toThrow(
      expect.objectContaining({
        name: "DesignError",
        design: "time-first",
        cause: expect.objectContaining({
          name: "UnplannableReadError",
          read: "recent",
          group: "g",
          schema: "k",
        }),
      }),
    );
  });
});

describe("the shipped examples", () => {
  const dir = new URL("../../../examples/", import.meta.url);
  const files = readdirSync(dir).filter((file) => file.endsWith(".yaml"));

  it("include the four scenarios of the issue", () => {
    expect(files).toEqual(
      expect.arrayContaining([
        "fleet-hotspot.yaml",
        "agri-iot.yaml",
        "sequential-ids.yaml",
        "timestamp-first.yaml",
      ]),
    );
  });

  it.each(files)("%s parses and every design runs", (file) => {
    const scenario = parseScenario(readFileSync(new URL(file, dir), "utf8"));
    expect(scenario.designs.length).toBeGreaterThan(1);
    const result = simulateScenario(scenario, { durationS: 20 });
    expect(result.designs.map((design) => design.design)).toEqual(
      scenario.designs.map((design) => design.name),
    );
  });
});

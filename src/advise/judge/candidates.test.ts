import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SchemaSpec } from "../../keys/types.js";
import {
  parseScenario,
  type Scenario,
  type ScenarioDesign,
  validateScenario,
} from "../../sim/scenario/scenario.js";
import { keyRoles } from "../infer/field-roles.js";
import { uuidV7Keys } from "../infer/fixtures.testsuite.js";
import { splitKeySample } from "../infer/key-sample.js";
import { inferKeyStructure } from "../infer/key-structure.js";
import { realKeyOf } from "../infer/real-key.js";
import { scenarioFromSample } from "../infer/sample-scenario.js";
import { batchInterval, enumerateCandidates, saltBucketChoices, saltFields } from "./candidates.js";
import { designName } from "./design-name.js";

const fleet = parseScenario(
  readFileSync(new URL("../../../examples/fleet-hotspot.yaml", import.meta.url), "utf8"),
);
const postsScenario = parseScenario(
  readFileSync(new URL("../../../examples/timestamp-first.yaml", import.meta.url), "utf8"),
);

/** Candidates on 6 nodes with 12 buckets and no batching. */
const sixNodeCandidates = (scenario: Scenario, baseline: ScenarioDesign) =>
  enumerateCandidates(scenario, baseline, { nodes: 6, buckets: [12], batching: false });

describe("candidates", () => {
  it("reverses a global counter's digits, and only a global one: a counter after a writer field is not", () => {
    const orders = parseScenario(
      readFileSync(new URL("../../../examples/orders.yaml", import.meta.url), "utf8"),
    );
    const reversed = sixNodeCandidates(orders, orders.designs[0]!).find(
      (candidate) => candidate.name === "reverse-orderId",
    )!;
    expect(reversed.changes).toEqual([{ kind: "reverse-sequence", field: "orderId" }]);
    expect(reversed.design.schema.segments[1]).toEqual({
      field: "orderId",
      codec: { type: "reversed-uint", width: 12 },
    });
    // Reversed, the counter no longer moves through the key: nothing to reverse or salt it for again.
    expect(keyRoles(orders, reversed.design.schema).monotonic).toBeUndefined();
    const perShop = validateScenario({
      name: "per-shop",
      cluster: { nodes: 6 },
      workload: {
        groups: [
          {
            name: "g",
            entities: 100,
            fields: { shop: "s{i}", n: { sequence: { start: 1 } } },
            writesPerS: 100,
          },
        ],
      },
      designs: [
        {
          name: "as-is",
          schema: {
            version: 1,
            name: "k",
            layout: "text",
            segments: [
              { field: "shop", codec: { type: "string" } },
              { field: "n", codec: { type: "uint", width: 12 } },
            ],
          },
        },
      ],
    });
    const kinds = sixNodeCandidates(perShop, perShop.designs[0]!).flatMap((c) =>
      c.changes.map((x) => x.kind),
    );
    expect(kinds).not.toContain("reverse-sequence");
  });

  it("tries 2–4 × nodes and the powers of two up to 256, never fewer buckets than nodes", () => {
    expect(saltBucketChoices(12)).toEqual([16, 24, 32, 36, 48, 64, 128, 256]);
    expect(saltBucketChoices(100)).toEqual([128, 200, 256, 300, 400]);
    expect(saltBucketChoices(1)).toEqual([2, 3, 4, 8, 16, 32, 64, 128, 256]);
  });

  it("reads the fleet key's roles: device id, then a reversed time; shard is a workload field to promote", () => {
    const roles = keyRoles(fleet, fleet.designs[0]!.schema);
    expect(roles.fields.map((field) => [field.name, field.role.kind, field.inKey])).toEqual([
      ["deviceID", "entity", true],
      ["ts", "time", true],
      ["shard", "pick", false],
    ]);
    expect(roles.monotonic?.name).toBe("ts");
    expect(saltFields(roles)).toEqual(["deviceID"]);
  });

  it("enumerates as-is, promotion, salts, batching and batching with each key change", () => {
    const candidates = enumerateCandidates(fleet, fleet.designs[0]!, { nodes: 12, buckets: [16, 64] });
    expect(candidates.map((candidate) => candidate.name)).toEqual([
      "as-is",
      "promote-shard",
      "salt-16-by-deviceID",
      "salt-64-by-deviceID",
      "batch-2s",
      "promote-shard+batch-2s",
      "salt-16-by-deviceID+batch-2s",
      "salt-64-by-deviceID+batch-2s",
    ]);
    const salted = candidates[2]!;
    expect(salted.design.schema.salt).toEqual({ buckets: 16, fields: ["deviceID"] });
    expect(salted.complexity).toBe(3);
    expect(candidates[1]!.design.schema.segments[0]).toEqual({
      field: "shard",
      codec: { type: "uint", width: 2 },
    });
    expect(candidates[7]!).toMatchObject({ complexity: 5, design: { batch: 2 } });
  });

  it("reverses a forward timestamp, promotes the author ahead of it and salts the whole key the time leads", () => {
    const candidates = sixNodeCandidates(postsScenario, postsScenario.designs[0]!);
    expect(candidates.map((candidate) => candidate.name)).toEqual([
      "as-is",
      "reverse-ts",
      "promote-author",
      "salt-12-by-ts+author",
    ]);
    expect(candidates[2]!.design.schema.segments.map((s) => ("field" in s ? s.field : s.literal))).toEqual([
      "post",
      "author",
      "ts",
    ]);
    expect(candidates[3]!.design.schema.salt?.fields).toEqual(["ts", "author"]);
  });

  it("names designs by their changes, one scheme for the advisor, the lab and simulate", () => {
    expect(designName([])).toBe("as-is");
    expect(designName([{ kind: "salt", buckets: 64, fields: ["deviceID"] }])).toBe("salt-64-by-deviceID");
    expect(designName([{ kind: "salt", buckets: 16, fields: ["deviceID", "ts"] }])).toBe(
      "salt-16-by-deviceID+ts",
    );
    expect(
      designName([
        { kind: "promote", field: "shard" },
        { kind: "batch", intervalS: 2 },
      ]),
    ).toBe("promote-shard+batch-2s");
    expect(designName([{ kind: "reverse-timestamp", field: "ts" }])).toBe("reverse-ts");
  });

  it("also salts over the entity and the time when one entity writes too much for one node", () => {
    const fewSensors = {
      ...postsScenario,
      workload: {
        ...postsScenario.workload,
        groups: postsScenario.workload.groups.map((group) => ({ ...group, entities: 3, writesPerS: 20_000 })),
      },
    };
    const authorFirst = {
      name: "author-first",
      schema: {
        version: 1 as const,
        name: "author-ts",
        layout: "text" as const,
        segments: [
          { field: "author", codec: { type: "string" as const } },
          { field: "ts", codec: { type: "timestamp" as const, unit: "ms" as const } },
        ],
      },
    };
    const candidates = sixNodeCandidates(fewSensors, authorFirst);
    expect(candidates.map((candidate) => candidate.name)).toEqual([
      "as-is",
      "reverse-ts",
      "salt-12-by-author",
      "salt-12-by-author+ts",
    ]);
  });

  it("rejects a bucket count out of range", () => {
    expect(() => enumerateCandidates(fleet, fleet.designs[0]!, { nodes: 12, buckets: [1] })).toThrow(
      expect.objectContaining({ name: "AdviseOptionError", option: "buckets", value: "1" }),
    );
  });

  it("offers batching only where an entity writes more than once per interval, under each key its picks make", () => {
    const deviceMetricTime: SchemaSpec = {
      version: 1,
      name: "device-metric-ts",
      layout: "text",
      segments: [
        { field: "deviceID", codec: { type: "string" } },
        { field: "metric", codec: { type: "string" } },
        { field: "ts", codec: { type: "timestamp", unit: "ms" } },
      ],
    };
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.double({ min: 0.001, max: 50, noNaN: true }),
        fc.integer({ min: 1, max: 20 }),
        (entities, perEntityPerS, metrics) => {
          const scenario = validateScenario({
            name: "batching",
            cluster: { nodes: 6 },
            workload: {
              groups: [
                {
                  name: "g",
                  entities,
                  fields: {
                    deviceID: "d-{i:07}",
                    metric: { oneOf: Array.from({ length: metrics }, (_, k) => `m${k}`) },
                  },
                  writesPerS: entities * perEntityPerS,
                },
              ],
            },
            designs: [{ name: "as-is", schema: deviceMetricTime }],
          });
          const interval = batchInterval(scenario, keyRoles(scenario, deviceMetricTime));
          const pointsPerRowPerS = perEntityPerS / metrics;
          if (interval === undefined) expect(pointsPerRowPerS * 60).toBeLessThan(2 * (1 + 1e-9));
          else expect(pointsPerRowPerS * interval).toBeGreaterThanOrEqual(2 * (1 - 1e-9));
        },
      ),
    );
  });

  it("never offers batching for a key whose every write is a new event id", () => {
    const keys = uuidV7Keys(400).map((id, k) => `tenant${k % 5}#${id}`);
    const sample = splitKeySample(keys);
    const structure = inferKeyStructure(sample);
    const scenario = scenarioFromSample(sample, structure, {
      rates: { writesPerS: 20_000, reads: [] },
      nodes: 6,
      entities: 5,
    });
    const candidates = enumerateCandidates(scenario, scenario.designs[0]!, {
      nodes: 6,
      realKey: realKeyOf(structure),
    });
    expect(candidates.some((candidate) => candidate.changes.some((change) => change.kind === "batch"))).toBe(
      false,
    );
  });
});

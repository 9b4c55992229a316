import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expectGolden } from "../../test/golden.js";
import type { Scenario } from "../sim/scenario/scenario.js";
import { InstancePlanError, instanceIdFor } from "./bigtable-ids.js";
import { instancePlan, MAX_OVER_MIN_NODES, type PlanSource, STORAGE_TARGET_GIB } from "./instance-plan.js";
import { fleetSource, salted2xBoostSource, scenarioFile } from "./plan-sources.fixture.js";

/** The error's field, or a failure when the call does not throw an InstancePlanError. */
function fieldOf(build: () => unknown): string {
  try {
    build();
  } catch (error) {
    if (error instanceof InstancePlanError) return error.field;
    throw error;
  }
  throw new Error("expected an InstancePlanError");
}

/** The source with its scenario's cluster settings replaced (fields later branches declare included). */
function withCluster(source: PlanSource, cluster: Record<string, unknown>): PlanSource {
  const merged = { ...source.scenario.cluster, ...cluster };
  const scenario: Scenario = { ...source.scenario, cluster: merged };
  return { ...source, scenario };
}

const oneCluster = (): PlanSource => {
  const { replicas: _none, ...source } = salted2xBoostSource();
  return withCluster(source, { nodeScalingFactor: 1, autoscaling: undefined });
};

describe("instancePlan", () => {
  it("the fleet as the lab recommends it: two clusters of 32, its profiles as declared, the table it has", () => {
    const plan = instancePlan(fleetSource());
    expect(plan.instanceId).toBe("fleet-hotspot");
    expect(plan.clusters).toMatchObject([
      {
        id: "fleet-east",
        zone: "us-east1-b",
        zoneAssumed: true,
        nodes: 32,
        storageType: "SSD",
        nodeScalingFactor: 1,
      },
      { id: "fleet-central", zone: "us-central1-b", nodes: 32 },
    ]);
    expect(plan.table).toMatchObject({ id: "device-reverse-ts", exists: true, splitKeys: [], family: "m" });
    expect(plan.gcPolicy).toEqual({
      table: "device-reverse-ts",
      family: "m",
      maxAgeS: 30 * 86400,
      maxVersions: 1,
    });
    expect(plan.appProfiles).toEqual([
      {
        id: "ingest-and-latest",
        paths: ["writes", "latest-100"],
        routing: { kind: "single-cluster", clusterId: "fleet-east", transactionalWrites: true },
        isolation: { kind: "standard", priority: "PRIORITY_HIGH" },
      },
      {
        id: "dashboards",
        paths: ["dashboard-30d"],
        routing: { kind: "multi-cluster", clusterIds: [] },
        isolation: { kind: "standard", priority: "PRIORITY_LOW" },
      },
    ]);
  });

  it("a new salted table is pre-split at its buckets; one profile per path; Data Boost for the read that asks", () => {
    const plan = instancePlan(salted2xBoostSource());
    expect(plan.table.splitKeys.map(String)).toEqual(
      Array.from({ length: 15 }, (_, i) => `${String(i + 1).padStart(2, "0")}#`),
    );
    // The scenario declares autoscaling without a storage target, so the lab sizes storage at
    // Google's default target (2,560 GiB per SSD node), and the plan sets that same target.
    expect(plan.clusters[0]).toMatchObject({
      id: "fleet-hotspot-c1",
      nodeScalingFactor: 2,
      autoscaling: { minNodes: 18, maxNodes: 40, cpuTargetPercent: 60, storageTargetGiBPerNode: 2560 },
    });
    expect(plan.appProfiles.map((profile) => [profile.id, profile.isolation.kind])).toEqual([
      ["writes", "standard"],
      ["latest-100", "standard"],
      ["dashboard-30d-data-boost", "data-boost"],
    ]);
  });

  it("zones: given per cluster, else each region's next free zone", () => {
    const plan = instancePlan(
      {
        ...fleetSource(),
        replicas: [
          { name: "fleet-east", region: "us-east1", nodes: 3 },
          { name: "fleet-east-2", region: "us-east1", nodes: 3 },
          { name: "fleet-central", region: "us-central1", nodes: 3 },
        ],
      },
      { zones: { "fleet-central": "us-central1-f" } },
    );
    expect(plan.clusters.map((cluster) => [cluster.zone, cluster.zoneAssumed])).toEqual([
      ["us-east1-b", true],
      ["us-east1-c", true],
      ["us-central1-f", false],
    ]);
  });

  it("a schema name Bigtable rejects as a table id (generated names hold +) becomes one it accepts, with a note", () => {
    const source = oneCluster();
    const plan = instancePlan({
      ...source,
      schema: { ...source.schema, name: "post-ts-salt-12-by-ts+author" },
    });
    expect(plan.table.id).toBe("post-ts-salt-12-by-ts_author");
    expectGolden(import.meta.url, "notes-table-id.txt", `${plan.notes.join("\n")}\n`);
  });

  it("a scenario without retention gets no GC max-age, and says so", () => {
    const source = oneCluster();
    const { retention: _none, ...workload } = source.scenario.workload;
    const plan = instancePlan({ ...source, scenario: { ...source.scenario, workload } });
    expect(plan.gcPolicy.maxAgeS).toBeUndefined();
    expectGolden(import.meta.url, "notes-no-retention.txt", `${plan.notes.join("\n")}\n`);
  });

  it("names Bigtable rejects fail naming the field", () => {
    expect(fieldOf(() => instancePlan(fleetSource(), { instanceId: "ab" }))).toBe(
      "instance id (--instance-id)",
    );
    expect(fieldOf(() => instancePlan(fleetSource(), { instanceId: "Fleet_Hotspot" }))).toBe(
      "instance id (--instance-id)",
    );
    expect(fieldOf(() => instancePlan(fleetSource(), { instanceId: "a".repeat(34) }))).toBe(
      "instance id (--instance-id)",
    );
    // examples/checks names its clusters "east" and "central": too short for a Bigtable cluster id.
    const checks = scenarioFile("checks/multi-cluster-consistency.yaml");
    const source: PlanSource = {
      scenario: checks,
      design: checks.designs[0]!,
      schema: checks.designs[0]!.schema,
      storage: "ssd",
      nodes: 7,
      replicas: [
        { name: "east", region: "us-east1", nodes: 7 },
        { name: "central", region: "us-central1", nodes: 7 },
      ],
    };
    expect(fieldOf(() => instancePlan(source))).toBe("replication.clusters[0].name");
    expect(fieldOf(() => instancePlan(fleetSource(), { zones: "us-east1-b" }))).toBe("zone (--zone)");
    expect(fieldOf(() => instancePlan(fleetSource(), { zones: { "fleet-west": "us-west1-b" } }))).toBe(
      "zone (--zone)",
    );
    expect(fieldOf(() => instancePlan(oneCluster(), { zones: "us-central1" }))).toBe("zone (--zone)");
    const badRead = oneCluster();
    const reads = [{ ...badRead.scenario.workload.reads[0]!, name: "latest 100" }];
    expect(
      fieldOf(() =>
        instancePlan({
          ...badRead,
          scenario: { ...badRead.scenario, workload: { ...badRead.scenario.workload, reads } },
        }),
      ),
    ).toBe("workload.reads[0].name");
  });

  it("settings Bigtable refuses fail naming the field", () => {
    expect(
      fieldOf(() => instancePlan({ ...withCluster(oneCluster(), { nodeScalingFactor: 2 }), storage: "hdd" })),
    ).toBe("cluster.nodeScalingFactor");
    expect(
      fieldOf(() => instancePlan(withCluster(oneCluster(), { autoscaling: { minNodes: 3, maxNodes: 31 } }))),
    ).toBe("cluster.autoscaling.maxNodes");
    expect(
      fieldOf(() => instancePlan(withCluster(oneCluster(), { autoscaling: { minNodes: 9, maxNodes: 8 } }))),
    ).toBe("cluster.autoscaling.maxNodes");
    expect(
      fieldOf(() =>
        instancePlan(
          withCluster(oneCluster(), {
            autoscaling: { minNodes: 3, maxNodes: 6, storageTargetGiBPerNode: 2000 },
          }),
        ),
      ),
    ).toBe("cluster.autoscaling.storageTargetGiBPerNode");
  });

  it("instance ids made from scenario names are ones Bigtable accepts", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (name) => {
        expect(instanceIdFor(name)).toMatch(/^[a-z][a-z0-9-]{4,31}[a-z0-9]$/);
      }),
    );
  });
});

describe("instancePlan's physics", () => {
  it("2× node scaling always gives even node counts, never fewer than the verdict's", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), (nodes) => {
        const [cluster] = instancePlan({
          ...withCluster(oneCluster(), { nodeScalingFactor: 2 }),
          nodes,
        }).clusters;
        expect(cluster!.nodes % 2).toBe(0);
        expect(cluster!.nodes).toBeGreaterThanOrEqual(nodes);
        expect(cluster!.nodes - nodes).toBeLessThan(2);
      }),
    );
  });

  it("an autoscaled cycle keeps the maximum within 10× the minimum, and the storage target within Google's range", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 0, max: 900 }),
        fc.constantFrom(1 as const, 2 as const),
        fc.double({ min: 0.1, max: 1, noNaN: true }),
        (minNodes, extra, factor, storageShare) => {
          const source = withCluster(oneCluster(), {
            nodeScalingFactor: factor,
            storageTarget: storageShare,
          });
          const plan = instancePlan({
            ...source,
            autoscaled: { minNodes, maxNodes: minNodes + extra, cpuTarget: 0.7, followsPeak: true },
          });
          const scaling = plan.clusters[0]!.autoscaling!;
          expect(scaling.maxNodes).toBeLessThanOrEqual(MAX_OVER_MIN_NODES * scaling.minNodes);
          expect(scaling.maxNodes).toBeGreaterThanOrEqual(minNodes + extra);
          expect(scaling.storageTargetGiBPerNode).toBeGreaterThanOrEqual(STORAGE_TARGET_GIB.ssd.min);
          expect(scaling.storageTargetGiBPerNode).toBeLessThanOrEqual(STORAGE_TARGET_GIB.ssd.max);
        },
      ),
    );
  });

  it("the storage target the plan sets keeps at least the nodes the verdict sized storage with", () => {
    const plan = instancePlan({
      ...oneCluster(),
      autoscaled: { minNodes: 32, maxNodes: 40, cpuTarget: 0.7, followsPeak: true },
    });
    // The lab sizes storage at 70 % of an SSD node's 5 TiB: 3,584 GiB. Bigtable's default, 2,560, would keep 40 % more nodes.
    expect(plan.clusters[0]!.autoscaling!.storageTargetGiBPerNode).toBe(3584);
  });

  it("a declared maximum below the verdict's nodes is kept, and said", () => {
    const plan = instancePlan(withCluster(oneCluster(), { autoscaling: { minNodes: 10, maxNodes: 20 } }));
    expect(plan.clusters[0]!.autoscaling).toMatchObject({ minNodes: 10, maxNodes: 20 });
    expectGolden(import.meta.url, "notes-declared-maximum.txt", `${plan.notes.join("\n")}\n`);
  });

  it("a peak shorter than the autoscaler's reaction is provisioned for, not autoscaled", () => {
    const plan = instancePlan({
      ...oneCluster(),
      nodes: 20,
      autoscaled: { minNodes: 10, maxNodes: 30, cpuTarget: 0.7, followsPeak: false },
    });
    expect(plan.clusters[0]).toMatchObject({ nodes: 30 });
    expect(plan.clusters[0]!.autoscaling).toBeUndefined();
  });
});

/**
 * Plan sources for the printers' tests, read from the example scenarios with the figures the lab
 * gives them (no simulation here: `keyspread lab` on examples/fleet-hotspot.yaml recommends as-is,
 * 32 SSD nodes by Google's targets, and 32 nodes in each of its two clusters).
 */
import { readFileSync } from "node:fs";
import { findScenarioDesign, parseScenario, type Scenario } from "../sim/scenario/scenario.js";
import { type InstancePlan, instancePlan, type PlanSource } from "./instance-plan.js";

export const scenarioFile = (path: string): Scenario =>
  parseScenario(readFileSync(new URL(`../../examples/${path}`, import.meta.url), "utf8"));

/** The fleet incident as the lab recommends it: the current key (its table exists) on 32 nodes per cluster. */
export function fleetSource(): PlanSource {
  const scenario = scenarioFile("fleet-hotspot.yaml");
  // The advisor runs a design that keeps the current key on the table that exists.
  const design = { ...findScenarioDesign(scenario, "as-is"), table: "existing" as const };
  return {
    scenario,
    design,
    schema: design.schema,
    storage: "ssd",
    nodes: 32,
    replicas: [
      { name: "fleet-east", region: "us-east1", nodes: 32 },
      { name: "fleet-central", region: "us-central1", nodes: 32 },
    ],
  };
}

/**
 * The fleet on one cluster with a new salted table and the settings other branches add to the
 * scenario (2× node scaling, an autoscaling range with its storage target, dashboards on Data Boost),
 * set the way the scenario will declare them.
 */
export function salted2xBoostSource(): PlanSource {
  const { replication: _none, ...fleet } = scenarioFile("fleet-hotspot.yaml");
  const cluster = {
    ...fleet.cluster,
    nodeScalingFactor: 2 as const,
    autoscaling: { cpuTarget: 0.6, minNodes: 18, maxNodes: 40 },
  };
  const reads = fleet.workload.reads.map((read) =>
    read.kind === "scan" ? { ...read, dataBoost: true } : read,
  );
  const scenario: Scenario = { ...fleet, cluster, workload: { ...fleet.workload, reads } };
  const design = findScenarioDesign(scenario, "salt-16-by-deviceID+ts");
  return { scenario, design, schema: design.schema, storage: "ssd", nodes: 32 };
}

/** The plans the golden files hold, by file name. */
export const goldenPlans = (): [string, InstancePlan][] => [
  ["fleet-hotspot", instancePlan(fleetSource())],
  ["fleet-salt16-2x-boost", instancePlan(salted2xBoostSource())],
];

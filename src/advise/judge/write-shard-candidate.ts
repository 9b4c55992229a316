/**
 * One hot row: a key with no time or counter puts every write of an entity on one row, and a row
 * is never split, so no salt and no node count helps once that row alone takes a node. Its remedy
 * is write shards (spread the row's writes over a few physical rows, merge them on read); the
 * shard count is the row's CPU over the hottest node's target, both from sourced figures.
 */
import { compileSchema } from "../../keys/schema.js";
import type { FieldValues } from "../../keys/types.js";
import { writeCost } from "../../sim/cluster/cluster.js";
import { defaultCostModel } from "../../sim/cluster/model.js";
import { HOTTEST_CPU_LIMIT } from "../../sim/results/summary.js";
import type { Scenario, ScenarioDesign, WorkloadGroup } from "../../sim/scenario/scenario.js";
import { CompiledGroup } from "../../sim/workload/workload.js";
import { keyRoles, rowsOfGroup } from "../infer/field-roles.js";
import type { KeyChange } from "./design-name.js";

export interface BusiestRow {
  group: WorkloadGroup;
  /** The key's first field, for messages. */
  field: string;
  writesPerS: number;
  /** Share of one node's CPU the row's writes take, at the scenario's row size. */
  cpu: number;
}

/** Most rows a write-shard candidate names one by one; a hot group of more entities shards every row. */
const NAMED_ENTITIES = 16;
const MAX_SHARDS = 256;

/**
 * The busiest row key when the key has no time or counter (every write of an entity goes to one
 * row): its writes per second and their share of a node, at the scenario's row size.
 */
export function busiestRow(scenario: Scenario, design: ScenarioDesign): BusiestRow | undefined {
  const roles = keyRoles(scenario, design.schema);
  if (roles.monotonic !== undefined) return undefined;
  const key = roles.fields.filter((field) => field.inKey);
  // One group's writes share that group's rows; the busiest row is the busiest of any group's
  // (one device writing 12,600 points/s is one row, however many other devices there are).
  const names = key.map((field) => field.name);
  const busiest = scenario.workload.groups
    .map((group) => ({ group, writesPerS: group.writesPerS / Math.max(1, rowsOfGroup(group, names)) }))
    .reduce((a, b) => (b.writesPerS > a.writesPerS ? b : a));
  const rowBytes = busiest.group.rowBytes ?? scenario.workload.rowBytes;
  const cpu = busiest.writesPerS * writeCost(rowBytes, defaultCostModel(scenario.cluster.storage));
  return { group: busiest.group, field: key[0]?.name ?? "key", writesPerS: busiest.writesPerS, cpu };
}

/** Shards that bring one row's CPU under the hottest node's target. */
export function shardCount(row: BusiestRow): number {
  return Math.min(MAX_SHARDS, Math.max(2, Math.ceil(row.cpu / HOTTEST_CPU_LIMIT)));
}

/**
 * Write-shard changes for a row over the hottest node's target: `count` shards and twice as many
 * (headroom for the balancer to place them), naming the hot group's entities when they are few.
 */
export function writeShardChanges(scenario: Scenario, baseline: ScenarioDesign): KeyChange[][] {
  if (baseline.schema.writeShards) return [];
  const row = busiestRow(scenario, baseline);
  if (row === undefined || row.cpu < HOTTEST_CPU_LIMIT) return [];
  const entities = hotEntities(scenario, baseline, row.group);
  const count = shardCount(row);
  return [...new Set([count, Math.min(MAX_SHARDS, 2 * count)])].map((shards) => [
    { kind: "write-shards", count: shards, ...(entities ? { entities } : {}) },
  ]);
}

/**
 * The hot group's rows as entities: the leading key fields its entities fix (fields a template
 * fills), each entity's values. Undefined (every row sharded) when the first key field is not
 * fixed per entity or the group has too many entities to name.
 */
function hotEntities(
  scenario: Scenario,
  baseline: ScenarioDesign,
  group: WorkloadGroup,
): FieldValues[] | undefined {
  const schema = compileSchema(baseline.schema);
  const fixed: string[] = [];
  for (const field of schema.fields) {
    if (typeof group.fields[field.name] !== "string") break;
    fixed.push(field.name);
  }
  if (fixed.length === 0 || group.entities > NAMED_ENTITIES) return undefined;
  const compiled = new CompiledGroup(schema, group, baseline, scenario.workload.rowBytes, 0);
  const entities = Array.from({ length: group.entities }, (_, entity) => {
    const values = compiled.writeValues(entity, 0, 0);
    return Object.fromEntries(fixed.map((name) => [name, values[name]!])) as FieldValues;
  });
  const distinct = new Map(entities.map((entity) => [JSON.stringify(entity), entity]));
  return [...distinct.values()];
}

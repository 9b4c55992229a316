/**
 * The salting guide's decision table — write pattern, read pattern, data volume, cluster size, query
 * complexity — filled in from the workload and the simulation: each factor says what was observed
 * and whether it points to salting or to the alternatives.
 */

import { defaultCapacity } from "../../sim/cluster/model.js";
import { HOTTEST_CPU_LIMIT } from "../../sim/results/summary.js";
import { formatDuration } from "../../sim/scenario/duration.js";
import type { Scenario } from "../../sim/scenario/scenario.js";
import { keyRoles } from "../infer/field-roles.js";
import type { EvaluatedCandidate } from "./recommend.js";
import { BALANCED_MAX_OVER_MEDIAN, percent } from "./score.js";
import { busiestRow, shardCount } from "./write-shard-candidate.js";

export type DecisionLeaning = "salting" | "alternatives" | "either";

export interface DecisionRow {
  factor: "Write pattern" | "Read pattern" | "Data volume" | "Cluster size" | "Query complexity";
  observed: string;
  pointsTo: DecisionLeaning;
}

/** The salting guide: "small clusters (3-5 nodes)" vs "large clusters (10+ nodes)". */
const SMALL_CLUSTER = 5;
const LARGE_CLUSTER = 10;

function writePattern(scenario: Scenario, asIs: EvaluatedCandidate): DecisionRow {
  const roles = keyRoles(scenario, asIs.candidate.design.schema);
  if (roles.monotonic && roles.entityPrefix.length === 0) {
    return {
      factor: "Write pattern",
      observed: `sequential: ${roles.monotonic.name} (${roles.monotonic.role.kind}) leads the key, so every write goes to one end`,
      pointsTo: "salting",
    };
  }
  if (asIs.kind === "failed")
    return { factor: "Write pattern", observed: "not simulated (see the as-is design)", pointsTo: "either" };
  const scores = asIs.scores;
  const ratio = `${scores.maxOverMedian.toFixed(1)}× the median node`;
  if (scores.maxOverMedian <= BALANCED_MAX_OVER_MEDIAN)
    return {
      factor: "Write pattern",
      observed: `naturally distributed: hottest node at ${ratio}`,
      pointsTo: "alternatives",
    };
  const hot = asIs.failures.some((failure) => failure.target === "hottestCpu");
  return hot
    ? {
        factor: "Write pattern",
        observed: `concentrated: the hottest node runs at ${percent(scores.hottestCpu)}, ${ratio}`,
        pointsTo: "salting",
      }
    : {
        factor: "Write pattern",
        observed: `uneven but light: the hottest node runs at ${percent(scores.hottestCpu)} (${ratio}), within the target`,
        pointsTo: "either",
      };
}

function readPattern(scenario: Scenario): DecisionRow {
  const reads = scenario.workload.reads;
  if (reads.length === 0)
    return { factor: "Read pattern", observed: "no reads declared", pointsTo: "either" };
  const described = reads
    .map((read) =>
      read.kind === "latest"
        ? `latest ${read.limit} per entity at ${read.perS}/s`
        : read.kind === "scan"
          ? `${formatDuration(read.window)} range scans at ${read.perS}/s`
          : `point gets at ${read.perS}/s`,
    )
    .join(", ");
  const frequentScans = reads.some((read) => read.kind === "scan" && read.perS >= 1);
  return {
    factor: "Read pattern",
    observed: frequentScans ? `frequent range scans: ${described}` : `lookups per entity: ${described}`,
    pointsTo: frequentScans ? "alternatives" : "salting",
  };
}

function dataVolume(scenario: Scenario): DecisionRow {
  const writesPerS = scenario.workload.groups.reduce((sum, group) => sum + group.writesPerS, 0);
  const nodeWrites = defaultCapacity(scenario.cluster.storage).writesPerS;
  const high = writesPerS >= nodeWrites;
  return {
    factor: "Data volume",
    observed: `${Math.round(writesPerS).toLocaleString("en-US")} writes/s (${Math.round(writesPerS * 60).toLocaleString("en-US")} a minute); one ${scenario.cluster.storage} node takes ${nodeWrites.toLocaleString("en-US")}/s`,
    pointsTo: high ? "salting" : "alternatives",
  };
}

function clusterSize(nodes: number): DecisionRow {
  return {
    factor: "Cluster size",
    observed: `${nodes} nodes`,
    pointsTo: nodes >= LARGE_CLUSTER ? "salting" : nodes <= SMALL_CLUSTER ? "alternatives" : "either",
  };
}

function queryComplexity(evaluated: readonly EvaluatedCandidate[]): DecisionRow {
  const salted = evaluated.find((each) => each.candidate.changes.some((change) => change.kind === "salt"));
  const fanouts = salted?.kind === "judged" ? salted.scores.reads.map((read) => read.fanout) : [];
  if (!salted || fanouts.length === 0)
    return { factor: "Query complexity", observed: "no reads to plan", pointsTo: "either" };
  const worst = Math.max(...fanouts);
  return worst <= 1
    ? {
        factor: "Query complexity",
        observed: "every read names its entity, so under a salt on the entity it reads one bucket",
        pointsTo: "salting",
      }
    : {
        factor: "Query complexity",
        observed: `reads span buckets: ×${worst} scatter-gather under ${salted.candidate.name}`,
        pointsTo: "alternatives",
      };
}

/**
 * Why salting cannot help this workload, if it cannot: one row key alone takes Google's
 * hottest-node target (90 %) or more (a salt hashes the whole key, so one row stays one row on one node), or storage,
 * not CPU spread, sets the node count (a salt moves load; it stores the same bytes).
 */
function saltCannotHelp(scenario: Scenario, asIs: EvaluatedCandidate): DecisionRow | undefined {
  const row = busiestRow(scenario, asIs.candidate.design);
  const nodeWrites = defaultCapacity(scenario.cluster.storage).writesPerS;
  if (row !== undefined && row.cpu >= HOTTEST_CPU_LIMIT) {
    return {
      factor: "Write pattern",
      observed: `one row: each ${row.field} value is one row key taking ${Math.round(row.writesPerS).toLocaleString("en-US")} writes/s (${percent(row.cpu)} of a node's ${nodeWrites.toLocaleString("en-US")}/s); a salt hashes the whole key, so no salt splits that row; write shards (${shardCount(row)} or more, merged on read) do`,
      pointsTo: "alternatives",
    };
  }
  const needed = asIs.kind === "judged" ? asIs.result.summary.guidance.nodesNeeded : undefined;
  if (needed && needed.cpu !== null && needed.storage > 1 && needed.storage >= needed.cpu) {
    return {
      factor: "Data volume",
      observed: `storage sizes the cluster: ${needed.storage} nodes for the bytes stored, ${needed.cpu} for CPU; a salt moves load, it stores the same bytes`,
      pointsTo: "alternatives",
    };
  }
  return undefined;
}

export function decisionTable(
  scenario: Scenario,
  asIs: EvaluatedCandidate,
  evaluated: readonly EvaluatedCandidate[],
): DecisionRow[] {
  const rows = [
    writePattern(scenario, asIs),
    readPattern(scenario),
    dataVolume(scenario),
    clusterSize(scenario.cluster.nodes),
    queryComplexity(evaluated),
  ];
  const cannot = saltCannotHelp(scenario, asIs);
  if (cannot === undefined) return rows;
  // Where no salt can help, no factor points to salting: the reason replaces its row, the rest go quiet.
  return rows.map((row) =>
    row.factor === cannot.factor ? cannot : row.pointsTo === "salting" ? { ...row, pointsTo: "either" } : row,
  );
}

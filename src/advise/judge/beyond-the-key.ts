/**
 * When the right answer is not (only) a key change: long range scans that belong in an analytical
 * store, a cluster short of capacity rather than of spread, a hot range more nodes cannot cool,
 * and one tenant dominating the writes (the fleet incident).
 */
import { formatDuration } from "../../sim/scenario/duration.js";
import type { Scenario } from "../../sim/scenario/scenario.js";
import type { EvaluatedCandidate, JudgedCandidate } from "./recommend.js";
import { type AdviceTargets, percent } from "./score.js";

export interface BeyondTheKey {
  kind: "no-change" | "analytical-store" | "capacity" | "more-nodes-do-not-help" | "dominant-tenant";
  text: string;
}

/** Scans longer than this are dashboards over history: analytical queries (the fleet incident's 30-day scans). */
const ANALYTICAL_WINDOW_S = 7 * 86400;
/** …or scans reading this many rows each. */
const ANALYTICAL_ROWS = 100_000;
/** A group with this share of all writes, writing this many times more per entity than the rest, is a hot tenant. */
const DOMINANT_SHARE = 0.5;
const HOT_TENANT_RATIO = 2;

/** A scan this long, or reading this many rows, is an analytical query, not Bigtable's job. */
export const isAnalytical = (windowS: number, rowsPerRead: number) =>
  windowS >= ANALYTICAL_WINDOW_S || rowsPerRead >= ANALYTICAL_ROWS;

export function beyondTheKey(
  scenario: Scenario,
  asIs: EvaluatedCandidate,
  recommended: JudgedCandidate | undefined,
  targets: AdviceTargets,
): BeyondTheKey[] {
  const notes: BeyondTheKey[] = asIs.kind === "judged" ? currentKeyNotes(asIs, targets) : [];
  const reference = recommended ?? asIs;
  const simulatedReads = reference.kind === "judged" ? reference.scores.reads : [];
  for (const read of scenario.workload.reads) {
    if (read.kind !== "scan") continue;
    const rows = simulatedReads.find((each) => each.name === read.name)?.rowsReadPerRead ?? 0;
    if (!isAnalytical(read.window, rows)) continue;
    notes.push({
      kind: "analytical-store",
      text: `"${read.name}" scans ${formatDuration(read.window)} of an entity (about ${Math.round(rows).toLocaleString("en-US")} rows per scan): that is an analytical query. Read it through Data Boost (no copy, no cluster CPU), or move it to BigQuery (change streams) or Parquet files and keep Bigtable for point lookups and recent windows; the sizing prices the three. No key design makes it cheap.`,
    });
  }
  const groups = scenario.workload.groups;
  const writes = groups.reduce((sum, group) => sum + group.writesPerS, 0);
  const entities = groups.reduce((sum, group) => sum + group.entities, 0);
  for (const group of groups) {
    const share = group.writesPerS / writes;
    const entityShare = group.entities / entities;
    if (groups.length < 2 || share < DOMINANT_SHARE || share < HOT_TENANT_RATIO * entityShare) continue;
    notes.push({
      kind: "dominant-tenant",
      text: `Group "${group.name}" makes ${percent(share)} of all writes from ${percent(entityShare)} of the entities: show its ingest rate on a dashboard and consider admission control or a table of its own, so one tenant cannot take the shared cluster's write budget.`,
    });
  }
  return notes;
}

/** What the current key's own run says beyond a key change: none needed, capacity, or a range more nodes cannot cool. */
function currentKeyNotes(asIs: JudgedCandidate, targets: AdviceTargets): BeyondTheKey[] {
  const { scores, sizing } = asIs;
  if (asIs.failures.length === 0)
    return [{ kind: "no-change", text: "The current key meets the targets: no key change is needed." }];
  if (sizing.today.bound === "storage" && sizing.today.storage > asIs.nodes) {
    const { cpu, storage } = sizing.today;
    return [
      {
        kind: "capacity",
        text: `The data the current key keeps needs ${storage} nodes for storage, ${cpu} for CPU: storage, not CPU, sizes the cluster. Neither a key change nor batching shrinks the bytes kept; a shorter retention (exporting the rest) or HDD does — see the sizing.`,
      },
    ];
  }
  if (scores.nodesNeeded !== null && scores.nodesNeeded > asIs.nodes)
    return [
      {
        kind: "capacity",
        text: `The current key spreads its load (hottest node ${scores.maxOverMedian.toFixed(1)}× the median): the cluster is short of capacity, not of spread. It needs about ${scores.nodesNeeded} nodes; a key change moves work, it cannot remove it (batching can).`,
      },
    ];
  if (scores.nodesNeeded === null)
    return [
      {
        kind: "more-nodes-do-not-help",
        text: `More nodes will not fix the current key: its hottest node carries one key range (${scores.maxOverMedian.toFixed(1)}× the median node, ${percent(scores.hottestCpu)} against a ${percent(targets.hottestCpu)} target); adding nodes adds cost to ranges that are already cool.`,
      },
    ];
  return [];
}

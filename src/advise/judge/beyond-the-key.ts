/**
 * When the right answer is not (only) a key change: long range scans that belong in an analytical
 * store, a cluster short of capacity rather than of spread, a hot range more nodes cannot cool,
 * and one tenant dominating the writes (the fleet incident).
 */
import type { Scenario } from "../../sim/scenario/scenario.js";
import type { EvaluatedCandidate, JudgedCandidate } from "./recommend.js";
import type { AdviceTargets } from "./score.js";

/** A note beyond the key, with what was measured; report/beyond-the-key-text.ts says it in a sentence. */
export type BeyondTheKey =
  /** The current key meets the targets. */
  | { kind: "no-change" }
  /** Storage sizes the cluster: the bytes kept need more nodes than the CPU does (null: more nodes do not help the CPU). */
  | { kind: "capacity"; bound: "storage"; storageNodes: number; cpuNodes: number | null }
  /** The current key spreads its load (hottest node `maxOverMedian`× the median) but needs more nodes. */
  | { kind: "capacity"; bound: "cpu"; maxOverMedian: number; nodesNeeded: number }
  /** The current key's hottest node carries one key range: more nodes do not cool it. */
  | { kind: "more-nodes-do-not-help"; maxOverMedian: number; hottestCpu: number; hottestTarget: number }
  /** A scan over `windowS` of an entity, reading about `rowsPerScan` rows: an analytical query. */
  | { kind: "analytical-store"; read: string; windowS: number; rowsPerScan: number }
  /** One group writes `writeShare` of all writes from `entityShare` of the entities. */
  | { kind: "dominant-tenant"; group: string; writeShare: number; entityShare: number };

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
    notes.push({ kind: "analytical-store", read: read.name, windowS: read.window, rowsPerScan: rows });
  }
  const groups = scenario.workload.groups;
  const writes = groups.reduce((sum, group) => sum + group.writesPerS, 0);
  const entities = groups.reduce((sum, group) => sum + group.entities, 0);
  for (const group of groups) {
    const share = group.writesPerS / writes;
    const entityShare = group.entities / entities;
    if (groups.length < 2 || share < DOMINANT_SHARE || share < HOT_TENANT_RATIO * entityShare) continue;
    notes.push({ kind: "dominant-tenant", group: group.name, writeShare: share, entityShare });
  }
  return notes;
}

/** What the current key's own run says beyond a key change: none needed, capacity, or a range more nodes cannot cool. */
function currentKeyNotes(asIs: JudgedCandidate, targets: AdviceTargets): BeyondTheKey[] {
  const { scores, sizing } = asIs;
  if (asIs.failures.length === 0) return [{ kind: "no-change" }];
  if (sizing.today.bound === "storage" && sizing.today.storage > asIs.nodes)
    return [
      { kind: "capacity", bound: "storage", storageNodes: sizing.today.storage, cpuNodes: sizing.today.cpu },
    ];
  if (scores.nodesNeeded !== null && scores.nodesNeeded > asIs.nodes)
    return [
      {
        kind: "capacity",
        bound: "cpu",
        maxOverMedian: scores.maxOverMedian,
        nodesNeeded: scores.nodesNeeded,
      },
    ];
  if (scores.nodesNeeded === null)
    return [
      {
        kind: "more-nodes-do-not-help",
        maxOverMedian: scores.maxOverMedian,
        hottestCpu: scores.hottestCpu,
        hottestTarget: targets.hottestCpu,
      },
    ];
  return [];
}

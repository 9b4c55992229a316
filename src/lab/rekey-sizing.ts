/**
 * When the lab's verdict changes the key of the table that exists, the re-keying it asks for,
 * sized (src/migrate/sizing): the rows and bytes the current key keeps (the scenario's write rate
 * × its retention; without one, what the run wrote), today's load as the current key's run shows
 * it, and the migration's nodes, durations and cost on the scenario's cluster and prices. Pure.
 */
import type { Advice } from "../advise/judge/advise.js";
import type { JudgedCandidate } from "../advise/judge/recommend.js";
import { price } from "../advise/size/prices.js";
import { type MigrationSizing, sizeMigration } from "../migrate/sizing/migration-sizing.js";
import { SIZING_CONSTANTS } from "../migrate/sizing/sizing-constants.js";
import { sizingReport } from "../migrate/sizing/sizing-report.js";
import type { TableVolume } from "../migrate/sizing/table-volume.js";
import { constantAt } from "../sim/cluster/model-constants.js";
import type { Scenario } from "../sim/scenario/scenario.js";

/** Backfill tasks the lab plans for (`keyspread migrate job --tasks`). */
const LAB_TASKS = 8;

export interface RekeySizing {
  /** The design that keeps the current key on the table that exists, and the one the verdict re-keys to. */
  from: string;
  to: string;
  /** Seconds of writes the current table keeps; undefined: no retention, sized for what the run wrote. */
  retentionS: number | undefined;
  volume: TableVolume;
  tasks: number;
  rowsPerSPerTask: number;
  sizing: MigrationSizing;
}

export function rekeySizing(scenario: Scenario, advice: Advice): RekeySizing | undefined {
  const chosen = advice.recommended;
  const current = advice.candidates.find(
    (each): each is JudgedCandidate => each.kind === "judged" && each.candidate.design.table === "existing",
  );
  if (!chosen || !current || chosen.candidate.design.table !== "new") return undefined;
  const storedBytes = current.sizing.today.storedBytes;
  const compression = constantAt("compression", "default", scenario.workload.compression);
  const volume: TableVolume = {
    rows: Math.round((storedBytes * compression) / scenario.workload.rowBytes),
    storedBytes,
    basis: "scenario",
  };
  const storage = scenario.cluster.storage;
  const rowsPerSPerTask = SIZING_CONSTANTS.rowsPerSPerTask.value;
  const sizing = sizeMigration({
    rows: volume.rows,
    storedBytes,
    cluster: {
      nodes: current.nodes,
      storage,
      averageCpu: current.scores.averageCpu,
      pricePerNodeHour: price(scenario, "bigtable.nodeHour"),
      pricePerGbMonth: price(scenario, storage === "ssd" ? "bigtable.ssdGiBMonth" : "bigtable.hddGiBMonth"),
    },
    liveWritesPerS: advice.writesPerS,
    tasks: LAB_TASKS,
    rowsPerSPerTask,
    dataBoost: false,
    // The runbook keeps the old table for its data's retention after writes move (30 days without one).
    keepOldTableS: advice.retention?.seconds ?? 30 * 86_400,
  });
  return {
    from: current.candidate.name,
    to: chosen.candidate.name,
    retentionS: advice.retention?.seconds,
    volume,
    tasks: LAB_TASKS,
    rowsPerSPerTask,
    sizing,
  };
}

/** The lab's lines for it, under the verdict. */
export function rekeyLines(rekey: RekeySizing, nodes: number): string[] {
  return [
    `Re-keying ${rekey.from} → ${rekey.to}: a new table, backfilled while the app dual-writes (keyspread migrate plan; migrate job runs the backfill as ${rekey.tasks} tasks).${
      rekey.retentionS === undefined
        ? " The scenario keeps no retention: sized for what the run wrote; set workload.retention."
        : ""
    }`,
    ...sizingReport(rekey.sizing, {
      volume: rekey.volume,
      tasks: rekey.tasks,
      rowsPerSPerTask: rekey.rowsPerSPerTask,
      dataBoost: false,
      nodes,
    }).slice(1),
  ];
}

/** The migration's sizing in lines a person reads, under `keyspread migrate plan` and the lab's verdict. Pure. */
import { dollars } from "../../advise/size/cost.js";
import type { MigrationRun, MigrationSizing } from "./migration-sizing.js";
import type { TableVolume } from "./table-volume.js";

const DAY_S = 86_400;

/** `3.4 days` or `7.2 h`: a duration at the scale a migration is planned in. */
export function planDuration(seconds: number | null): string {
  if (seconds === null) return "never (no CPU to spare)";
  if (seconds >= 2 * DAY_S) return `${(seconds / DAY_S).toFixed(1)} days`;
  if (seconds >= 3_600) return `${(seconds / 3_600).toFixed(1)} h`;
  return seconds >= 60 ? `${Math.round(seconds / 60)} min` : "under a minute";
}

const percent = (share: number) => `${Math.round(share * 100)} %`;
const count = (value: number) => Math.round(value).toLocaleString("en-US");
const tebibytes = (bytes: number) => `${(bytes / 1e12).toFixed(bytes >= 1e13 ? 0 : 2)} TB`;

const BOUND_WORDS: Record<MigrationRun["bound"], string> = {
  tasks: "bounded by the tasks",
  "cluster-cpu": "bounded by the cluster's spare CPU (the copy's reads and writes share it)",
  "target-writes": "bounded by the cluster's spare CPU for the writes (reads through Data Boost)",
};

function runLines(name: string, run: MigrationRun, sizing: MigrationSizing, perTask: number): string[] {
  const cost = run.cost;
  return [
    `  ${name}: ${run.nodes} nodes — backfill ${count(run.rowsPerS)} rows/s (${BOUND_WORDS[run.bound]}; ${run.tasksToSaturate} task(s) of ${count(perTask)} rows/s reach the CPU's bound), ${planDuration(run.backfillS)}; validate ${planDuration(run.validateS)}; average CPU ${percent(run.averageCpu)} while both run.`,
    `    Dual-write lasts ${planDuration(run.dualWriteS)}; then ${run.nodesAfterCutover} nodes while the old table is kept (both stored).${
      cost
        ? ` Cost: ${dollars(cost.nodes)} for ${count(cost.extraNodeHours)} node-hours above the ${sizing.baselineNodes} the table needs anyway, ${dollars(cost.storage)} storing both tables${cost.dataBoostSpuHours > 0 ? `, ${dollars(cost.dataBoost)} of Data Boost (${count(cost.dataBoostSpuHours)} SPU-hours)` : ""}: ${dollars(cost.total)}.`
        : ""
    }`,
  ];
}

export function sizingReport(
  sizing: MigrationSizing,
  context: { volume: TableVolume; tasks: number; rowsPerSPerTask: number; dataBoost: boolean; nodes: number },
): string[] {
  const { volume } = context;
  const source = {
    "sample-row-keys": "SampleRowKeys' byte offsets",
    "sample-row-keys-floor": "SampleRowKeys' last offset — a floor: no closing sample (the emulator)",
    scan: "counting the rows (an embedded table)",
    scenario: "the scenario's write rate × retention",
  }[volume.basis];
  return [
    `Sizing the migration (Google's targets: average CPU ≤ 70 %, storage ≤ 70 % of a node's limit; docs/migrate.md, Sizing):`,
    `  Copy ${count(sizing.rows)} rows, ${tebibytes(sizing.storedBytes)} (${count(sizing.rowBytes)} B a row), from ${source}.`,
    `  Dual-write applies every live write twice: ${percent(sizing.cpu.today)} → ${percent(sizing.cpu.dualWrite)} average CPU on today's ${context.nodes} nodes, before any copy.`,
    `  Storage: one table needs ${sizing.storageNodes.oneTable} node(s), both ${sizing.storageNodes.bothTables}, until the old table is deleted.`,
    ...runLines("On the fewest nodes", sizing.onFewestNodes, sizing, context.rowsPerSPerTask),
    ...runLines(
      `At ${context.tasks} tasks × ${count(context.rowsPerSPerTask)} rows/s`,
      sizing.atRequestedRate,
      sizing,
      context.rowsPerSPerTask,
    ),
    context.dataBoost
      ? "  Reads go through a Data Boost app profile: no cluster CPU, billed in SPUs."
      : "  Reading through a Data Boost app profile (--data-boost here, --read-app-profile on the tasks) would take the reads off the cluster.",
  ];
}

/**
 * A re-keying sized before it starts: how long the backfill takes, on how many nodes, and what the
 * migration costs. Pure arithmetic on the lab's cost model (sim/cluster/cluster.ts: a row's write
 * and scan cost in node-seconds, from Google's per-node figures) and Google's targets.
 *
 * The old and the new table share one cluster (a new table in the same instance). From the moment
 * dual-write starts until writes cut over, every live write is applied twice: the cluster carries
 * today's load plus the live writes once more. The backfill adds, per copied row, one write to the
 * new table and one scanned row of the old — none on the cluster when it reads through a Data Boost
 * app profile (serverless compute, billed in SPUs instead). What is left under Google's 70 %
 * average CPU bounds the copy, whatever the task count; validate then reads both tables once.
 * The new key is the one chosen to spread, so the second writes and the copy spread over every
 * node; a hot range of the old key stays as hot as it is (sizing holds the average, not the hottest).
 * Both tables are stored until the old one is deleted, so storage may need more nodes than CPU.
 */
import { type CostModel, scannedRowCost, writeCost } from "../../sim/cluster/cluster.js";
import { defaultCostModel } from "../../sim/cluster/model.js";
import { constantAt } from "../../sim/cluster/model-constants.js";
import { AVERAGE_CPU_LIMIT } from "../../sim/results/summary.js";
import type { Storage } from "../../sim/scenario/scenario.js";
import { MigrateOptionError } from "../migrate-option-error.js";
import { SIZING_CONSTANTS } from "./sizing-constants.js";

const HOUR_S = 3_600;
/** The month Google's pricing calculator uses: 365 × 24 ÷ 12 hours. */
const MONTH_S = 730 * HOUR_S;
/** Google bills storage per binary GB (Google Cloud, "Bigtable pricing"). */
const BYTES_PER_GB = 2 ** 30;

export interface MigrationCluster {
  /** Nodes today. */
  nodes: number;
  storage: Storage;
  /** Today's average CPU (reads and writes), 0–1; default: the live writes' alone. */
  averageCpu?: number;
  pricePerNodeHour: number;
  pricePerGbMonth: number;
  /** A node's storage limit × Google's storage target; default the lab's constants for `storage`. */
  plannedBytesPerNode?: number;
  /** Default: the lab's cost model for `storage` at its constants' defaults. */
  cost?: CostModel;
}

export interface MigrationSizingInput {
  /** Rows of the old table, and the bytes it stores. */
  rows: number;
  storedBytes: number;
  cluster: MigrationCluster;
  /** Rows/s the app writes; while dual-write lasts, each is written to both tables. */
  liveWritesPerS: number;
  tasks: number;
  /** Rows/s one task copies when nothing else bounds it; default an assumption (sizing-constants.ts). */
  rowsPerSPerTask?: number;
  /** The backfill and validate read through a Data Boost app profile. */
  dataBoost: boolean;
  /** How long the old table is kept after writes cut over, before it is deleted. */
  keepOldTableS: number;
  pricePerSpuHour?: number;
}

/** What limits the copy's rate: the tasks asked for, the cluster's spare CPU for reads and writes, or (Data Boost reads) for the writes alone. */
export type CopyBound = "tasks" | "cluster-cpu" | "target-writes";

export interface MigrationCost {
  /** Node-hours above the nodes the table needs without the migration (whole hours: Bigtable bills each hour's most nodes). */
  extraNodeHours: number;
  nodes: number;
  /** Both tables stored: the new one's bytes, from the backfill's start until the old one is deleted. */
  storage: number;
  dataBoostSpuHours: number;
  dataBoost: number;
  total: number;
}

/** The migration on `nodes` nodes. */
export interface MigrationRun {
  nodes: number;
  /** Backfill rate and what bounds it. */
  rowsPerS: number;
  bound: CopyBound;
  /** Tasks that reach the CPU's bound (more copy no faster). */
  tasksToSaturate: number;
  /** Average CPU during the backfill: today's load, the live writes again, the copy. */
  averageCpu: number;
  /** null when the cluster has no CPU to spare for the copy. */
  backfillS: number | null;
  validateS: number | null;
  /** Dual-write lasts through the backfill and validate, until writes cut over. */
  dualWriteS: number | null;
  /** Nodes while the old table is kept after the cut-over (both tables stored). */
  nodesAfterCutover: number;
  cost: MigrationCost | null;
}

export interface MigrationSizing {
  rows: number;
  storedBytes: number;
  rowBytes: number;
  /** Node-seconds per copied row on the cluster: the new table's write, the old table's scanned row (0 through Data Boost). */
  copyCost: { write: number; read: number };
  /** Today's average CPU, the live writes' share of it, and the average with every live write applied twice (on today's nodes, no copy). */
  cpu: { today: number; liveWrites: number; dualWrite: number };
  storageNodes: { oneTable: number; bothTables: number };
  /** Nodes the table needs without a migration: today's, or more if its storage needs them. */
  baselineNodes: number;
  requestedRowsPerS: number;
  /** On the fewest nodes that hold both tables and the dual-write load within Google's targets. */
  onFewestNodes: MigrationRun;
  /** On the nodes that carry the requested rate (tasks × rows/s a task) within 70 % average CPU. */
  atRequestedRate: MigrationRun;
}

export function sizeMigration(input: MigrationSizingInput): MigrationSizing {
  checkInput(input);
  const { cluster } = input;
  const model = cluster.cost ?? defaultCostModel(cluster.storage);
  const rowBytes = input.rows === 0 ? 0 : input.storedBytes / input.rows;
  const write = writeCost(rowBytes, model);
  const read = input.dataBoost ? 0 : scannedRowCost(rowBytes, model);
  // Node-units: nodes' worth of CPU (node-seconds per second).
  const liveWriteUnits = input.liveWritesPerS * write;
  const todayUnits = (cluster.averageCpu ?? liveWriteUnits / cluster.nodes) * cluster.nodes;
  const dualWriteUnits = todayUnits + liveWriteUnits;
  const planned = cluster.plannedBytesPerNode ?? plannedBytesPerNode(cluster.storage);
  const storageNodes = (bytes: number) => Math.max(1, Math.ceil(bytes / planned - 1e-9));
  const oneTable = storageNodes(input.storedBytes);
  const bothTables = storageNodes(2 * input.storedBytes);
  const baselineNodes = Math.max(cluster.nodes, oneTable);
  const perTask = input.rowsPerSPerTask ?? SIZING_CONSTANTS.rowsPerSPerTask.value;
  const requestedRowsPerS = input.tasks * perTask;
  const nodesFor = (units: number) => Math.ceil(units / AVERAGE_CPU_LIMIT - 1e-9);
  const fewest = Math.max(baselineNodes, bothTables, nodesFor(dualWriteUnits));
  const sized = Math.max(fewest, nodesFor(dualWriteUnits + requestedRowsPerS * (write + read)));

  const run = (nodes: number): MigrationRun => {
    const spare = Math.max(0, AVERAGE_CPU_LIMIT * nodes - dualWriteUnits);
    const cpuBound = spare / (write + read);
    const rowsPerS = Math.min(requestedRowsPerS, cpuBound);
    const bound: CopyBound =
      requestedRowsPerS <= cpuBound ? "tasks" : input.dataBoost ? "target-writes" : "cluster-cpu";
    // Validate reads every row of both tables (no writes).
    const validateRowsPerS = Math.min(requestedRowsPerS, read === 0 ? Infinity : spare / (2 * read));
    const backfillS = rowsPerS > 0 ? input.rows / rowsPerS : input.rows === 0 ? 0 : null;
    const validateS = validateRowsPerS > 0 ? input.rows / validateRowsPerS : input.rows === 0 ? 0 : null;
    const dualWriteS = backfillS === null || validateS === null ? null : backfillS + validateS;
    const nodesAfterCutover = Math.max(baselineNodes, bothTables);
    return {
      nodes,
      rowsPerS,
      bound,
      tasksToSaturate: Math.max(1, Math.ceil(cpuBound / perTask - 1e-9)),
      averageCpu: (dualWriteUnits + rowsPerS * (write + read)) / nodes,
      backfillS,
      validateS,
      dualWriteS,
      nodesAfterCutover,
      cost:
        dualWriteS === null || backfillS === null || validateS === null
          ? null
          : migrationCost(input, model, rowBytes, {
              extraDuring: nodes - baselineNodes,
              duringS: dualWriteS,
              extraAfter: nodesAfterCutover - baselineNodes,
              heldS: backfillS / 2 + validateS + input.keepOldTableS,
            }),
    };
  };

  return {
    rows: input.rows,
    storedBytes: input.storedBytes,
    rowBytes,
    copyCost: { write, read },
    cpu: {
      today: todayUnits / cluster.nodes,
      liveWrites: liveWriteUnits / cluster.nodes,
      dualWrite: dualWriteUnits / cluster.nodes,
    },
    storageNodes: { oneTable, bothTables },
    baselineNodes,
    requestedRowsPerS,
    onFewestNodes: run(fewest),
    atRequestedRate: run(sized),
  };
}

/** A node's storage limit × Google's storage target, at the lab's constants. */
function plannedBytesPerNode(storage: Storage): number {
  const limit = constantAt(
    storage === "ssd" ? "ssdStorageBytesPerNode" : "hddStorageBytesPerNode",
    "default",
  );
  return limit * constantAt("storageTarget", "default");
}

function migrationCost(
  input: MigrationSizingInput,
  model: CostModel,
  rowBytes: number,
  phases: { extraDuring: number; duringS: number; extraAfter: number; heldS: number },
): MigrationCost {
  const { cluster } = input;
  const wholeHours = (s: number) => Math.ceil(s / HOUR_S - 1e-9);
  const extraNodeHours =
    phases.extraDuring * wholeHours(phases.duringS) + phases.extraAfter * wholeHours(input.keepOldTableS);
  const nodes = extraNodeHours * cluster.pricePerNodeHour;
  const storage = (input.storedBytes / BYTES_PER_GB) * (phases.heldS / MONTH_S) * cluster.pricePerGbMonth;
  // Data Boost does the reads the cluster would: the backfill scans the old table once, validate both tables.
  const readNodeSeconds = input.dataBoost ? 3 * input.rows * scannedRowCost(rowBytes, model) : 0;
  const dataBoostSpuHours = (readNodeSeconds * SIZING_CONSTANTS.spuPerNode.value) / HOUR_S;
  const dataBoost = dataBoostSpuHours * (input.pricePerSpuHour ?? SIZING_CONSTANTS.pricePerSpuHour.value);
  return { extraNodeHours, nodes, storage, dataBoostSpuHours, dataBoost, total: nodes + storage + dataBoost };
}

function checkInput(input: MigrationSizingInput): void {
  const whole = (name: string, value: number, min: number) => {
    if (!Number.isInteger(value) || value < min)
      throw new MigrateOptionError(
        name,
        value,
        `a whole number ≥ ${min}`,
        `${name} must be a whole number ≥ ${min}, got ${value}`,
      );
  };
  const nonNegative = (name: string, value: number) => {
    if (!Number.isFinite(value) || value < 0)
      throw new MigrateOptionError(name, value, "a number ≥ 0", `${name} must be a number ≥ 0, got ${value}`);
  };
  whole("nodes", input.cluster.nodes, 1);
  whole("tasks", input.tasks, 1);
  nonNegative("rows", input.rows);
  nonNegative("storedBytes", input.storedBytes);
  nonNegative("liveWritesPerS", input.liveWritesPerS);
  nonNegative("keepOldTableS", input.keepOldTableS);
  if (input.rowsPerSPerTask !== undefined && !(input.rowsPerSPerTask > 0))
    throw new MigrateOptionError(
      "rowsPerSPerTask",
      input.rowsPerSPerTask,
      "a number of rows/s > 0",
      `rows/s per task must be > 0, got ${input.rowsPerSPerTask}`,
    );
  const cpu = input.cluster.averageCpu;
  if (cpu !== undefined && !(cpu >= 0 && Number.isFinite(cpu)))
    throw new MigrateOptionError(
      "averageCpu",
      cpu,
      "a share ≥ 0 (0.5 = 50 %)",
      `average CPU must be a share ≥ 0 (0.5 = 50 %), got ${cpu}`,
    );
}

/** What a simulation reports per design: a summary, a time series and the key-space load for heatmaps. */

import type { LoadStep } from "../../load/key-load.js";
import type { ClientCores } from "../client/client-cores.js";
import type { DataBoostRead } from "../cluster/data-boost.js";
import type { ModelEnd } from "../cluster/model-constants.js";
import type { LatencySummary, ReadSummary, TabletActivity, TimelinePoint } from "../engine/measurements.js";
import type { TableKind } from "../scenario/table-that-exists.js";
import type { LargestRow } from "../workload/row-size.js";

/**
 * A workload's cycle (absent for a steady load): where the run was placed in it, the average node CPU
 * at its peak and trough, and what an autoscaler would do over it.
 */
export interface CycleSummary {
  periodS: number;
  /** The run started this long after the scenario's `start`: placed so a peak ends it, after the warm-up. */
  offsetS: number;
  /** How long the load stays near its peak each time (a burst's window). */
  peakLastsS: number;
  /** Seconds of peaks judged. */
  judgedS: number;
  /** Average node CPU (demand) on the simulated nodes at the cycle's peak and trough. */
  averageNodeCpu: { peak: number; trough: number };
  /** Average node CPU (demand) on the simulated nodes at each wall-clock hour's busiest second of the period. */
  hourlyPeakNodeCpu: number[];
  autoscaler: Autoscaler;
}

/**
 * An autoscaler holding average CPU at `cpuTarget`: the fewest nodes it would run (at the trough) and
 * the most (at the peak). Added nodes carry load only after the rebalance time, so a peak shorter
 * than that is over before they help (`followsPeak` false).
 */
export interface Autoscaler {
  cpuTarget: number;
  minNodes: number;
  maxNodes: number;
  reactionS: number;
  followsPeak: boolean;
}

/** The run after the model's warm-up window: what a load test that ran long enough would measure. */
export interface SteadyState {
  /** Start of the steady state (s): the warm-up window, or the second half of a shorter run; for a cycle, its first judged peak. */
  fromS: number;
  /** Whether the run lasted twice the warm-up window (else the steady state still holds warm-up). */
  warmedUp: boolean;
  hottestNodeCpu: number;
  averageNodeCpu: number;
  /** Hottest over median node CPU: 1 is flat. */
  maxOverMedian: number;
  servedWritesPerS: number;
  shedWriteShare: number;
  /** p99 latency over the steady state: writes, and each read pattern with its shed share. */
  writeP99Ms: number;
  reads: { name: string; p99Ms: number; shedShare: number }[];
}

export interface Limit {
  value: number;
  limit: number;
  ok: boolean;
}

/** Google's capacity guidance applied to the steady state, and the nodes the design needs. */
export interface Guidance {
  averageCpu: Limit;
  hottestCpu: Limit;
  storage: {
    /** Bytes stored: writes over the retention (the GC max-age) if given, else what the run wrote. */
    bytes: number;
    retentionS: number | null;
    perNode: Limit;
    /** Share of the per-node storage limit used. */
    utilization: number;
  };
  /** The largest row one key builds, against Google's recommended 100 MB (Bigtable refuses 256 MB); null for a replay. */
  largestRow: LargestRow | null;
  nodesNeeded: {
    /** Fewest nodes meeting both CPU limits; null when the load sits on a key range more nodes would not cool. */
    cpu: number | null;
    storage: number;
    /** max(cpu, storage); null with cpu. */
    total: number | null;
  };
  meets: boolean;
}

export interface DesignSummary {
  hottestNodeCpu: {
    /** Mean over the first and the last sample interval, over the first and last 30 minutes, and over the run. */
    first: number;
    last: number;
    first30m: number;
    last30m: number;
    mean: number;
    max: number;
  };
  medianNodeCpu: { mean: number };
  averageNodeCpu: { mean: number };
  /** Hottest over median node CPU: 1 is flat. */
  maxOverMedian: { first: number; last: number; mean: number };
  /**
   * Start of the first sample interval from which the hottest node stays within 1.5× the median
   * to the end of the run (0: flat from the start); null when it never settles.
   */
  settledAfterS: number | null;
  /** The model's warm-up window: three rebalance times (each closes 90 % of an imbalance). */
  warmUpS: number;
  /** Judged over the steady time after the warm-up or, for a load with a cycle, over its peaks. */
  steadyState: SteadyState;
  /** The workload's cycle; null for a steady load. */
  cycle: CycleSummary | null;
  guidance: Guidance;
  writes: LatencySummary & { perS: number; rowBytes: number; shedShare: number };
  /** Reads the cluster serves (those on Data Boost are not among them). */
  reads: ReadSummary[];
  /** Scans served by Data Boost: no cluster CPU, priced in SPUs (absent when there are none). */
  dataBoostReads?: DataBoostRead[];
  tablets: TabletActivity;
}

export interface DesignResult {
  design: string;
  description?: string;
  schema: { name: string; fingerprint: string; bucketCount: number };
  /** Standard nodes (what is billed and what a node count means in Bigtable). */
  nodes: number;
  /** 2: the cluster runs nodes / 2 compute nodes of two standard nodes each; CPU figures are per compute node. */
  nodeScalingFactor: 1 | 2;
  /** The table it ran on: the one that exists (the current key's, warm) or a new one (a key change). */
  table: TableKind;
  storage: "ssd" | "hdd";
  costPerHour: number;
  mode: "fast" | "exact";
  /** Which end of the model's constant ranges this run used. */
  modelEnd: ModelEnd;
  durationS: number;
  stepS: number;
  summary: DesignSummary;
  /** The application cores the design's declared reads need on the client (sim/client). */
  clientCores: ClientCores;
  timeline: TimelinePoint[];
  /** Load per tablet per sample interval, for the key-space heatmap. */
  loadSteps: LoadStep[];
}

export interface SimulationResult {
  scenario: string;
  description?: string;
  durationS: number;
  designs: DesignResult[];
}

/** What a simulation reports per design: a summary, a time series and the key-space load for heatmaps. */
import type { LoadStep } from "../viz/matrix/key-load.js";

export interface LatencySummary {
  p50Ms: number;
  p99Ms: number;
}

export interface ReadSummary extends LatencySummary {
  name: string;
  kind: "latest" | "scan" | "get";
  perS: number;
  /** Ranges one read touches: its read amplification in requests. */
  fanout: number;
  rowsReadPerRead: number;
  rowsReturnedPerRead: number;
  /** Share of range reads shed by saturated nodes. */
  shedShare: number;
}

export interface TimelinePoint {
  /** Start of the sample interval, seconds since the start of the run. */
  t: number;
  /** Mean CPU per node over the interval (demand; above 1 = saturated). */
  nodeCpu: number[];
  hottestNodeCpu: number;
  medianNodeCpu: number;
  tablets: number;
  shedWriteShare: number;
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
  /** Hottest over median node CPU: 1 is flat. */
  maxOverMedian: { first: number; last: number; mean: number };
  /**
   * Start of the first sample interval from which the hottest node stays within 1.5× the median
   * to the end of the run (0: flat from the start); null when it never settles.
   */
  settledAfterS: number | null;
  writes: LatencySummary & { perS: number; rowBytes: number; shedShare: number };
  reads: ReadSummary[];
  tablets: { initial: number; final: number; loadSplits: number; sizeSplits: number; moves: number };
}

export interface DesignResult {
  design: string;
  description?: string;
  schema: { name: string; fingerprint: string; bucketCount: number };
  nodes: number;
  storage: "ssd" | "hdd";
  costPerHour: number;
  mode: "fast" | "exact";
  durationS: number;
  stepS: number;
  summary: DesignSummary;
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

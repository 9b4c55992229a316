/** What the engine measures of a run: node CPU over time, latency, and what the tablets did. */
export interface LatencySummary {
  p50Ms: number;
  p99Ms: number;
}

export interface ReadSummary extends LatencySummary {
  name: string;
  kind: "latest" | "scan" | "get";
  perS: number;
  /** Ranges one read touches (its fan-out). */
  fanout: number;
  rowsReadPerRead: number;
  rowsReturnedPerRead: number;
  /** Share of range reads shed by saturated nodes. */
  shedShare: number;
}

/** A read pattern as the engine is given it: its rate, fan-out and rows per read; latency and shedding are measured. */
export type ReadDemand = Omit<ReadSummary, "p50Ms" | "p99Ms" | "shedShare">;

export interface TimelinePoint {
  /** Start of the sample interval, seconds since the start of the run. */
  t: number;
  /** Mean CPU per node over the interval (demand; above 1 = saturated). */
  nodeCpu: number[];
  hottestNodeCpu: number;
  medianNodeCpu: number;
  averageNodeCpu: number;
  tablets: number;
  /** Rows written per second asked for, and served (not shed by saturated nodes). */
  writesPerS: number;
  servedWritesPerS: number;
  shedWriteShare: number;
}

/** A sample of the judged time: a timeline point over `durationS` (a sample interval or less, cut at a judged span's end). */
export type JudgedPoint = TimelinePoint & { durationS: number };

/** Tablets at the start and end of a run, and what splits, merges and the balancer did. */
export interface TabletActivity {
  initial: number;
  final: number;
  loadSplits: number;
  sizeSplits: number;
  merges: number;
  moves: number;
}

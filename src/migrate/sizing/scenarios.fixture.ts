/**
 * Five migrations sized by hand from Google's published figures BEFORE the sizing model was run
 * (committed first; the test that runs them came after). Figures used: an SSD node writes 14,000
 * 1 KB rows/s and scans 220 MB/s (Google, "Understand performance"); average CPU ≤ 70 % and
 * storage ≤ 70 % of 5 TiB an SSD node (Google, "Monitor an instance", "Quotas and limits");
 * $0.65 a node-hour, $0.17 a GiB-month (us-central1, "Bigtable pricing"); 1,000 SPUs of Data Boost
 * perform like one node ("Bigtable Data Boost overview"). A row under 1 KB costs half a 1 KB row
 * plus its bytes (the lab's fixedCostShare, an assumption of 0.5).
 *
 * Hand arithmetic (node-seconds per row, "units" = nodes' worth of CPU):
 * - 1 KB row: write 1/14,000 = 71.4 µs; scan 1,024 B / 220 MB/s = 4.65 µs; copy = 76.1 µs.
 * - 256 B row: factor 0.5 + 0.5 × 0.25 = 0.625; write 44.6 µs; scan 2.91 µs; copy 47.6 µs.
 * - 512 B row: factor 0.75; write 53.6 µs; scan 3.49 µs; copy 57.1 µs.
 */

export interface Range {
  min?: number;
  max?: number;
}

export type CopyBound = "tasks" | "cluster-cpu" | "target-writes";

export interface SizingScenario {
  name: string;
  why: string;
  input: {
    rows: number;
    storedBytes: number;
    nodes: number;
    averageCpu?: number;
    liveWritesPerS: number;
    tasks: number;
    rowsPerSPerTask: number;
    dataBoost: boolean;
    keepOldTableDays: number;
  };
  expect: {
    /** Average CPU on today's nodes while every live write is applied twice (no copy). */
    dualWriteAverageCpu?: Range;
    storageNodesOneTable?: Range;
    storageNodesBothTables?: Range;
    /** On the fewest nodes the migration needs anyway (today's, or what both tables' storage needs). */
    atCurrentNodes?: {
      rowsPerS?: Range;
      bound?: CopyBound;
      backfillHours?: Range;
      tasksToSaturate?: Range;
    };
    /** On the nodes that carry the requested rate (tasks × rows/s per task) within 70 %. */
    atRequestedRate?: { nodes?: Range; rowsPerS?: Range; backfillHours?: Range };
    cost?: { extraNodes?: Range; storage?: Range; dataBoostSpuHoursBackfill?: Range };
  };
}

/** 10 SSD nodes at 20 % with 14,000 1 KB writes/s, 1e9 rows of 1 KB to copy, the old table kept 7 days. */
const IDLE_CLUSTER: SizingScenario["input"] = {
  rows: 1e9,
  storedBytes: 1024e9,
  nodes: 10,
  averageCpu: 0.2,
  liveWritesPerS: 14_000,
  tasks: 4,
  rowsPerSPerTask: 10_000,
  dataBoost: false,
  keepOldTableDays: 7,
};

export const SIZING_SCENARIOS: SizingScenario[] = [
  {
    name: "idle cluster, few tasks",
    why: "10 nodes at 20 % (2.0 units) with 14,000 1 KB writes/s (1.0 unit): dual-write adds the live writes once more, 30 %. Spare at 70 %: 7.0 − 3.0 = 4.0 units → 4.0 / 76.1 µs = 52,600 rows/s, above 4 × 10,000: the tasks bound it; 1e9 rows / 40,000 = 25,000 s = 6.9 h. 2 TB of both tables fit 1 node: no extra nodes. Storage: 931 GiB held ≥ 7 days of 730 h months × $0.17 ≈ $36, plus the backfill and validate hours",
    input: IDLE_CLUSTER,
    expect: {
      dualWriteAverageCpu: { min: 0.29, max: 0.31 },
      storageNodesBothTables: { min: 1, max: 1 },
      atCurrentNodes: {
        rowsPerS: { min: 39_999, max: 40_001 },
        bound: "tasks",
        backfillHours: { min: 6.7, max: 7.1 },
      },
      cost: { extraNodes: { min: 0, max: 0 }, storage: { min: 35, max: 45 } },
    },
  },
  {
    name: "more tasks than the cluster's spare",
    why: "The same cluster with 32 tasks × 10,000 = 320,000 rows/s asked: on 10 nodes the spare CPU bounds it at 52,600 rows/s (reads and writes share the cluster), 6 tasks saturate it, 1e9 rows in 5.3 h. Carrying 320,000 rows/s needs (3.0 + 320,000 × 76.1 µs = 24.35) / 0.7 = 39.1 → 40 nodes; 1e9 / 320,000 = 0.87 h",
    input: { ...IDLE_CLUSTER, tasks: 32 },
    expect: {
      atCurrentNodes: {
        rowsPerS: { min: 51_500, max: 53_700 },
        bound: "cluster-cpu",
        backfillHours: { min: 5.1, max: 5.5 },
        tasksToSaturate: { min: 6, max: 6 },
      },
      atRequestedRate: {
        nodes: { min: 39, max: 40 },
        rowsPerS: { min: 319_999, max: 320_001 },
        backfillHours: { min: 0.85, max: 0.9 },
      },
    },
  },
  {
    name: "Data Boost reads",
    why: "As the previous, reads through Data Boost: the cluster pays only the writes, 4.0 units / 71.4 µs = 56,000 rows/s, bound by the target's writes. The reads cost Data Boost 1e9 × 4.65 µs = 4,655 node-s = 4.66 M SPU-s = 1,293 SPU-hours for the backfill",
    input: { ...IDLE_CLUSTER, tasks: 32, dataBoost: true },
    expect: {
      atCurrentNodes: { rowsPerS: { min: 55_000, max: 57_000 }, bound: "target-writes" },
      cost: { dataBoostSpuHoursBackfill: { min: 1_230, max: 1_360 } },
    },
  },
  {
    name: "the fleet incident's table",
    why: "180,000 writes/s of 256 B kept 30 days: 4.67e11 rows, 1.19e14 B. Live writes 180,000 × 44.6 µs = 8.04 units; today 95 % of 12 = 11.4 units; dual-write 19.4 units = 162 % of 12 nodes. One table needs 1.19e14 / (0.7 × 5 TiB) = 31.0 → 32 nodes (more than the 12 the account has: the sources win), both 62.1 → 63. On 63 nodes the spare is 44.1 − 19.4 = 24.7 units → 518,000 rows/s (tasks ask 640,000): 4.67e11 / 518,000 = 250 h = 10.4 days. For 640,000 rows/s: (19.4 + 30.4) / 0.7 = 71.2 → 72 nodes, 203 h = 8.4 days",
    input: {
      rows: 180_000 * 30 * 86_400,
      storedBytes: 256 * 180_000 * 30 * 86_400,
      nodes: 12,
      averageCpu: 0.95,
      liveWritesPerS: 180_000,
      tasks: 32,
      rowsPerSPerTask: 20_000,
      dataBoost: false,
      keepOldTableDays: 30,
    },
    expect: {
      dualWriteAverageCpu: { min: 1.6, max: 1.64 },
      storageNodesOneTable: { min: 32, max: 32 },
      storageNodesBothTables: { min: 62, max: 63 },
      atCurrentNodes: {
        rowsPerS: { min: 500_000, max: 535_000 },
        bound: "cluster-cpu",
        backfillHours: { min: 240, max: 260 },
      },
      atRequestedRate: {
        nodes: { min: 71, max: 72 },
        rowsPerS: { min: 639_999, max: 640_001 },
        backfillHours: { min: 198, max: 208 },
      },
    },
  },
  {
    name: "sequential ids, 7 days kept",
    why: "examples/sequential-ids.yaml's 12,000 writes/s of 512 B on 4 nodes, kept 7 days: 7.26e9 rows, 3.72e12 B. Live writes 12,000 × 53.6 µs = 0.643 units (16 %), dual-write 32 %. Both tables need 2 nodes for storage, fewer than 4. Spare 2.8 − 1.29 = 1.51 units / 57.1 µs = 26,500 rows/s, bound by the cluster: 2 tasks of 20,000 saturate it, 7.26e9 / 26,500 = 76 h",
    input: {
      rows: 12_000 * 7 * 86_400,
      storedBytes: 512 * 12_000 * 7 * 86_400,
      nodes: 4,
      liveWritesPerS: 12_000,
      tasks: 8,
      rowsPerSPerTask: 20_000,
      dataBoost: false,
      keepOldTableDays: 7,
    },
    expect: {
      dualWriteAverageCpu: { min: 0.31, max: 0.33 },
      storageNodesBothTables: { min: 2, max: 2 },
      atCurrentNodes: {
        rowsPerS: { min: 25_500, max: 27_500 },
        bound: "cluster-cpu",
        backfillHours: { min: 72, max: 80 },
        tasksToSaturate: { min: 2, max: 2 },
      },
    },
  },
];

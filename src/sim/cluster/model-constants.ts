/**
 * Every constant of the cluster model, with where it comes from and the range it could take.
 * A constant is either sourced (a published figure; its range spans the published figures) or an
 * assumption (no published figure; its range is our honest uncertainty). `--sensitivity` reruns a
 * design with every constant at its pessimistic end, then at its optimistic end, so a verdict that
 * depends on a guess shows as a range. A scenario that sets a constant fixes it at every end: it is
 * then the user's input, not the model's guess.
 */
import type { NumericField, ScenarioField } from "../scenario/scenario-field.js";

export type ModelEnd = "default" | "pessimistic" | "optimistic";
export const MODEL_ENDS: readonly ModelEnd[] = ["default", "pessimistic", "optimistic"];

/** `Field`: what names the input that overrides it; for the cluster model, a scenario field. */
export interface ModelConstant<Field extends string = string> {
  /** The scenario field (or flag) that overrides it. */
  field: Field;
  unit: string;
  value: number;
  low: number;
  high: number;
  /** Which end of the range makes the cluster look worse. */
  worse: "low" | "high";
  basis: "sourced" | "assumption";
  /** The published source (title and address), or why the assumption and its range. */
  source: string;
}

const GOOGLE_PERFORMANCE =
  'Google Cloud, "Understand performance" (https://cloud.google.com/bigtable/docs/performance)';
const GOOGLE_SCALING = 'Google Cloud, "Scaling" (https://cloud.google.com/bigtable/docs/scaling)';
const GOOGLE_OVERVIEW = 'Google Cloud, "Bigtable overview" (https://cloud.google.com/bigtable/docs/overview)';
const GOOGLE_SSD_HDD =
  'Google Cloud, "Choose between SSD and HDD storage" (https://cloud.google.com/bigtable/docs/choosing-ssd-hdd)';
const GOOGLE_QUOTAS = 'Google Cloud, "Quotas and limits" (https://cloud.google.com/bigtable/quotas)';
const GOOGLE_TIERED =
  'Google Cloud, "Tiered storage overview" (https://cloud.google.com/bigtable/docs/tiered-storage)';
const BIGTABLE_PAPER =
  'Chang et al., "Bigtable: A Distributed Storage System for Structured Data", OSDI 2006 (https://research.google/pubs/pub27898/)';

export const MODEL_CONSTANTS = {
  ssdWritesPerS: {
    field: "cluster.capacity.writesPerS",
    unit: "rows/s per node (1 KB rows)",
    value: 14_000,
    low: 10_000,
    high: 14_000,
    worse: "low",
    basis: "sourced",
    source: `${GOOGLE_PERFORMANCE}: "up to 14,000 rows per second" written per SSD node; Google's earlier figure, 10,000 QPS per node at 6 ms, is the low end`,
  },
  ssdReadsPerS: {
    field: "cluster.capacity.readsPerS",
    unit: "rows/s per node (1 KB rows)",
    value: 17_000,
    low: 10_000,
    high: 17_000,
    worse: "low",
    basis: "sourced",
    source: `${GOOGLE_PERFORMANCE}: "up to 17,000 rows per second" read per SSD node; the earlier 10,000 QPS figure is the low end`,
  },
  ssdScanBytesPerS: {
    field: "cluster.capacity.scanBytesPerS",
    unit: "bytes/s per node",
    value: 220e6,
    low: 220e6,
    high: 220e6,
    worse: "low",
    basis: "sourced",
    source: `${GOOGLE_PERFORMANCE}: "up to 220 MBps" scanned per SSD node`,
  },
  hddWritesPerS: {
    field: "cluster.capacity.writesPerS",
    unit: "rows/s per node (1 KB rows)",
    value: 10_000,
    low: 10_000,
    high: 10_000,
    worse: "low",
    basis: "sourced",
    source: `${GOOGLE_PERFORMANCE}: "up to 10,000 rows per second" written per HDD node`,
  },
  hddReadsPerS: {
    field: "cluster.capacity.readsPerS",
    unit: "rows/s per node (1 KB rows)",
    value: 500,
    low: 500,
    high: 500,
    worse: "low",
    basis: "sourced",
    source: `${GOOGLE_PERFORMANCE}: "up to 500 rows per second" read per HDD node; ${GOOGLE_SSD_HDD}: "only 5% of the read rows per second of SSD storage", because of disk seek time`,
  },
  hddScanBytesPerS: {
    field: "cluster.capacity.scanBytesPerS",
    unit: "bytes/s per node",
    value: 180e6,
    low: 180e6,
    high: 180e6,
    worse: "low",
    basis: "sourced",
    source: `${GOOGLE_PERFORMANCE}: "up to 180 MBps" scanned per HDD node`,
  },
  fixedCostShare: {
    field: "cluster.fixedCostShare",
    unit: "share of a 1 KB row's cost that does not grow with its bytes",
    value: 0.5,
    low: 0.25,
    high: 1,
    // A row over 1 KB costs its bytes at the 1 KB rate at any share, so the high end is never cheaper.
    worse: "high",
    basis: "assumption",
    source: `Google publishes capacity in rows per second for 1 KB rows and says larger rows cost more (${GOOGLE_PERFORMANCE}) but gives no curve; 1 (a row under 1 KB costs a whole 1 KB row) to 0.25 (mostly bytes). Over 1 KB a row costs its bytes at the 1 KB row's rate at every share: nothing published lets a node move more bytes per second in bigger rows`,
  },
  scanFixedCostShare: {
    field: "cluster.scanFixedCostShare",
    unit: "share of a scanned 1 KB row's cost that does not grow with its bytes",
    value: 0.5,
    low: 0.25,
    high: 1,
    worse: "high",
    basis: "assumption",
    source: `Google publishes the scan rate in bytes, "up to 220 MBps" per SSD node for 1 KB rows (${GOOGLE_PERFORMANCE}), ~215,000 rows/s; no per-row figure. At 1 a scanned row under 1 KB costs a whole 1 KB row (215,000 rows/s whatever their size), at 0.25 mostly its bytes`,
  },
  hddSeekMs: {
    field: "latency.hddSeekMs",
    unit: "ms mean an HDD range read waits for a disk seek before its first row",
    value: 12,
    low: 3,
    high: 40,
    worse: "high",
    basis: "assumption",
    source: `${GOOGLE_SSD_HDD}: "Because of disk seek time, HDD storage supports only 5% of the read rows per second of SSD storage"; its earlier version: SSD "6 ms latencies for both reads and writes for 99% of all requests", HDD "200 ms read latencies" on the same benchmark, and today HDD reads take "low double-digit ms". No seek time is published: 12 ms puts the HDD read p99 at 200 ms at 70 % CPU with the default latency constants; 3 ms (at 90 %) to 40 ms (a median read of ~30 ms) bracket it`,
  },
  splitOpsPerS: {
    field: "tablets.splitOpsPerS",
    unit: "operations/s sustained by one tablet",
    value: 2_500,
    low: 2_500,
    high: 3_000,
    worse: "high",
    basis: "sourced",
    source:
      "CockroachDB's allocator simulator (asim) splits a range at 2,500 QPS by default; TiKV's load-based split at 3,000 QPS (https://docs.pingcap.com/tidb/stable/configure-load-base-split); Bigtable publishes none",
  },
  splitCpuShare: {
    field: "tablets.splitCpuShare",
    unit: "share of a node's CPU one tablet may use before a load split",
    value: 0.5,
    low: 0.14,
    high: 0.5,
    worse: "high",
    basis: "sourced",
    source:
      "YDB splits a shard at 50 % CPU (https://ydb.tech/docs/en/troubleshooting/performance/schemas/splits-merges); TiKV also splits at 30 MiB/s read (https://docs.pingcap.com/tidb/stable/configure-load-base-split), 14 % of a node's 220 MB/s scan rate",
  },
  splitSustainS: {
    field: "tablets.splitSustain",
    unit: "seconds over the split threshold before a load split",
    value: 10,
    low: 10,
    high: 15,
    worse: "high",
    basis: "sourced",
    source:
      "TiKV splits after 10 s over its threshold (https://docs.pingcap.com/tidb/stable/configure-load-base-split); YDB assesses a shard in about 15 s (https://ydb.tech/docs/en/troubleshooting/performance/schemas/splits-merges)",
  },
  splitBytes: {
    field: "tablets.splitBytes",
    unit: "bytes in one tablet before a size split",
    value: 200e6,
    low: 100e6,
    high: 10e9,
    worse: "high",
    basis: "sourced",
    source: `${BIGTABLE_PAPER}: tablets of "approximately 100-200 MB"; Cloud Bigtable publishes no size; HBase splits regions at 10 GB (hbase.hregion.max.filesize) — the coarse end`,
  },
  balancePeriodS: {
    field: "tablets.balancePeriod",
    unit: "seconds between balancer runs",
    value: 60,
    low: 60,
    high: 300,
    worse: "high",
    basis: "sourced",
    source:
      "CockroachDB's allocator simulator (asim) rebalances every minute; HBase's balancer runs every 300 s (hbase.balancer.period)",
  },
  rebalanceS: {
    field: "tablets.rebalanceTime",
    unit: "seconds for the balancer to close 90 % of a load imbalance",
    value: 600,
    low: 300,
    high: 1200,
    worse: "high",
    basis: "sourced",
    source: `${GOOGLE_OVERVIEW}: after a cluster is resized it "typically takes just a few minutes under load" to balance across the nodes; ${GOOGLE_SCALING}: "up to 20 minutes under load" before added nodes improve performance`,
  },
  imbalance: {
    field: "tablets.imbalance",
    unit: "share above the mean node load before the balancer acts",
    value: 0.1,
    low: 0.1,
    high: 0.1,
    worse: "high",
    basis: "sourced",
    source: "CockroachDB's allocator simulator (asim) rebalances a store more than 10 % above the mean",
  },
  minCpuGap: {
    field: "tablets.minCpuGap",
    unit: "node CPU between hottest and coldest before the balancer acts",
    value: 0.05,
    low: 0.014,
    high: 0.05,
    worse: "high",
    basis: "assumption",
    source:
      "CockroachDB also wants stores ≥ 200 QPS apart (1.4 % of a 14,000 rows/s node); 5 % keeps an idle cluster from shuffling tablets",
  },
  mergeLoadShare: {
    field: "tablets.mergeLoadShare",
    unit: "share of the split threshold two neighbours may carry together and still merge",
    value: 0.25,
    low: 0.1,
    high: 0.5,
    worse: "low",
    basis: "assumption",
    source: `${GOOGLE_OVERVIEW} merges "less-accessed/smaller tablets"; YDB merges shards that are cold over the last hour (https://ydb.tech/docs/en/troubleshooting/performance/schemas/splits-merges); how cold is not published`,
  },
  mergeAgeS: {
    field: "tablets.mergeAge",
    unit: "seconds a tablet exists before it may merge",
    value: 600,
    low: 600,
    high: 600,
    worse: "high",
    basis: "sourced",
    source:
      "YDB merges only shards that have existed for at least 10 minutes (https://ydb.tech/docs/en/troubleshooting/performance/schemas/splits-merges)",
  },
  baseMs: {
    field: "latency.baseMs",
    unit: "ms every request pays (network, storage)",
    value: 2,
    low: 1,
    high: 4,
    worse: "high",
    basis: "assumption",
    source: "not published; sets the scale of latencies, not the comparison between designs",
  },
  serviceMs: {
    field: "latency.serviceMs",
    unit: "ms mean service time on an idle node",
    value: 1,
    low: 0.5,
    high: 2,
    worse: "high",
    basis: "assumption",
    source:
      "not published; with baseMs, a p99 near 6 ms at 70 % CPU (Google's earlier 10,000 QPS at 6 ms) sits inside the range",
  },
  queueBoundMs: {
    field: "latency.queueBoundMs",
    unit: "ms a saturated node queues a request before shedding it",
    value: 2_000,
    low: 1_000,
    high: 5_000,
    worse: "high",
    basis: "assumption",
    source: "not published; client deadlines are typically seconds",
  },
  ssdStorageBytesPerNode: {
    field: "cluster.storageLimitBytes",
    unit: "bytes stored per SSD node",
    value: 5 * 2 ** 40,
    low: 2.5 * 2 ** 40,
    high: 5 * 2 ** 40,
    worse: "low",
    basis: "sourced",
    source: `${GOOGLE_QUOTAS}: storage utilization per node, SSD 5 TB (earlier 2.5 TB, the low end)`,
  },
  hddStorageBytesPerNode: {
    field: "cluster.storageLimitBytes",
    unit: "bytes stored per HDD node",
    value: 16 * 2 ** 40,
    low: 8 * 2 ** 40,
    high: 16 * 2 ** 40,
    worse: "low",
    basis: "sourced",
    source: `${GOOGLE_QUOTAS}: storage utilization per node, HDD 16 TB (earlier 8 TB, the low end)`,
  },
  storageTarget: {
    field: "cluster.storageTarget",
    unit: "share of the per-node storage limit to plan for",
    value: 0.7,
    low: 0.6,
    high: 0.7,
    worse: "low",
    basis: "sourced",
    source:
      'Google Cloud, "Monitor an instance" (https://cloud.google.com/bigtable/docs/monitoring-instance): keep storage utilization below 70 % (60 % for latency-sensitive applications)',
  },
  computeNodeStandardNodes: {
    field: "cluster.nodeScalingFactor",
    unit: "standard nodes' capacity in one compute node at node scaling factor 2",
    value: 2,
    low: 2,
    high: 2,
    worse: "low",
    basis: "sourced",
    source: `${GOOGLE_SCALING}: with a 2x node scaling factor "Bigtable treats two standard nodes as a larger, single compute node", with "improved throughput" and a "greater ability to absorb hotspots"; the throughput gain beyond the two nodes' capacity is not quantified and not modelled`,
  },
  tieredBytesPerNode: {
    field: "cluster.tieredStorage",
    unit: "bytes stored per SSD node with tiered storage (both tiers)",
    value: 32 * 2 ** 40,
    low: 32 * 2 ** 40,
    high: 64 * 2 ** 40,
    worse: "low",
    basis: "sourced",
    source: `${GOOGLE_TIERED}: "The tiered storage limit is 32 TB per node for Enterprise edition and up to 64 TB per node for Enterprise Plus edition"; ${GOOGLE_SSD_HDD}: "32 TB (up to 5 TB SSD)". TB read as TiB, as the SSD 5 TB limit is`,
  },
  tieredSsdBytesPerNode: {
    field: "cluster.tieredStorage",
    unit: "bytes per node that may stay on SSD with tiered storage",
    value: 5 * 2 ** 40,
    low: 5 * 2 ** 40,
    high: 5 * 2 ** 40,
    worse: "low",
    basis: "sourced",
    source: `${GOOGLE_SSD_HDD}: an SSD instance with tiered storage holds "32 TB (up to 5 TB SSD)" per node`,
  },
  coldReadsPerS: {
    field: "cluster.tieredStorage",
    unit: "rows/s per node read from the infrequent-access tier (1 KB rows)",
    value: 100,
    low: 100,
    high: 100,
    worse: "low",
    basis: "sourced",
    source: `${GOOGLE_PERFORMANCE}: infrequent access storage, "up to 100 rows per second" read per node`,
  },
  coldScanBytesPerS: {
    field: "cluster.tieredStorage",
    unit: "bytes/s per node scanned from the infrequent-access tier",
    value: 36e6,
    low: 36e6,
    high: 36e6,
    worse: "low",
    basis: "sourced",
    source: `${GOOGLE_PERFORMANCE}: infrequent access storage, "up to 36 MBps" scanned per node`,
  },
  coldReadMs: {
    field: "cluster.tieredStorage",
    unit: "ms a read of the infrequent-access tier takes",
    value: 15,
    low: 10,
    high: 30,
    worse: "high",
    basis: "assumption",
    source: `${GOOGLE_SSD_HDD}: with tiered storage, reads take "low double-digit ms" (no figure): 10 to 30 ms`,
  },
  compression: {
    field: "workload.compression",
    unit: "logical bytes per stored byte",
    value: 1,
    low: 1,
    high: 2,
    worse: "low",
    basis: "assumption",
    source:
      "Bigtable compresses data at rest, but how well depends on the data; 1 (none) counts every written byte, 2 is typical of repetitive metrics",
  },
  replicationCpuShare: {
    field: "replication.cpuShare",
    unit: "share of a write's CPU a cluster spends pulling it from another cluster",
    value: 0.2,
    low: 0.05,
    high: 0.5,
    worse: "high",
    basis: "assumption",
    source:
      'not published: Google, "Replication and performance" (https://cloud.google.com/bigtable/docs/replication-performance) says each cluster spends CPU pulling the others\' changes and write throughput "might actually go down", without a figure; every cluster applies every write at the full write cost besides',
  },
  replicationLagS: {
    field: "replication.lag",
    unit: "s for a write to reach the other clusters",
    value: 1,
    low: 0.1,
    high: 30,
    worse: "high",
    basis: "assumption",
    source:
      'not published as a figure: Google, "Replication overview" (https://cloud.google.com/bigtable/docs/replication-overview) calls replication eventually consistent, with more latency between regions than within one; the replication latency metric measures it on a running instance',
  },
} satisfies Record<string, ModelConstant<ScenarioField>>;

export type ConstantName = keyof typeof MODEL_CONSTANTS;

/** Constants overridden by a field that takes any number, so a fit may set them. */
export type NumericConstantName = {
  [N in ConstantName]: (typeof MODEL_CONSTANTS)[N]["field"] extends NumericField ? N : never;
}[ConstantName];

/** The value of `name` at `end`, unless the scenario set it (`override`). */
export function constantAt(name: ConstantName, end: ModelEnd, override?: number): number {
  return valueAt(MODEL_CONSTANTS[name], end, override);
}

/** The value of a constant at `end`, unless the scenario set it (`override`). */
export function valueAt(constant: ModelConstant, end: ModelEnd, override?: number): number {
  if (override !== undefined) return override;
  if (end === "default") return constant.value;
  const worseIsLow = constant.worse === "low";
  return (end === "pessimistic") === worseIsLow ? constant.low : constant.high;
}

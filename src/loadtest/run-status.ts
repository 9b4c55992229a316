/**
 * A load test as its table holds it (`keyspread loadtest status`): the run asked for, each task's
 * share (held, done, failed or free; how far it got), and the run's measurement merged over the
 * shares — achieved against target rates, latency percentiles per operation, errors by code — and
 * the cluster's CPU and hot tablets over the run where the admin API and Cloud Monitoring answered.
 */
import { displayKey } from "../keys/key-text.js";
import type { ShardRecord } from "../migrate/job/job-rows.js";
import type { Store } from "../store/store.js";
import { type ClusterOverRun, readClusterSamples, summarizeCluster } from "./cluster-watch.js";
import { percentile } from "./latency-histogram.js";
import { type Measurement, mergeMeasurements } from "./measurement.js";
import { type LoadTestRun, readRun, readShares } from "./run-record.js";

export interface ShareStatus {
  task: number;
  state: "running" | "done" | "failed" | "free";
  host: string | null;
  drivenS: number;
  writes: number;
  /** Achieved over target writes (null before any target). */
  writeRatio: number | null;
  failed?: string;
}

export interface RunStatus {
  run: LoadTestRun;
  shares: ShareStatus[];
  /** Achieved over target, over every share: rows written and reads done. */
  writeRatio: number | null;
  readRatio: number | null;
  writes: number;
  reads: number;
  behind: number;
  errors: Record<string, number>;
  /** Per operation: p50, p99 and p99.9 in ms. */
  latency: Record<string, { p50: number | null; p99: number | null; p999: number | null; count: number }>;
  measurement: Measurement;
  /** CPU and hot tablets recorded over the run (no samples on the emulator: it has no admin API). */
  cluster: ClusterOverRun;
}

export async function readRunStatus(store: Store, now: number = Date.now()): Promise<RunStatus | undefined> {
  const run = await readRun(store);
  if (run === undefined) return undefined;
  const cluster = summarizeCluster(await readClusterSamples(store));
  return summarizeRun(run, await readShares(store, run), cluster, now);
}

const ratio = (done: number, target: number) => (target > 0 ? done / target : null);

export function summarizeRun(
  run: LoadTestRun,
  shares: readonly ShardRecord[],
  cluster: ClusterOverRun,
  now: number,
): RunStatus {
  const measurements = shares.flatMap((share) =>
    share.progress === undefined ? [] : [share.progress.detail as Measurement],
  );
  const merged = mergeMeasurements(measurements);
  return {
    run,
    shares: shares.map((share) => {
      const m = share.progress?.detail as Measurement | undefined;
      const state = share.progress?.complete
        ? "done"
        : share.progress?.failed !== undefined
          ? "failed"
          : (share.lease?.expiresAt ?? 0) > now
            ? "running"
            : "free";
      return {
        task: share.index,
        state,
        host: share.lease?.host ?? null,
        drivenS: m?.drivenS ?? 0,
        writes: m?.writes ?? 0,
        writeRatio: m === undefined ? null : ratio(m.writes, m.targetWrites),
        ...(share.progress?.failed === undefined ? {} : { failed: share.progress.failed }),
      };
    }),
    writeRatio: ratio(merged.writes, merged.targetWrites),
    readRatio: ratio(merged.reads, merged.targetReads),
    writes: merged.writes,
    reads: merged.reads,
    behind: merged.behind,
    errors: merged.errors,
    latency: Object.fromEntries(
      Object.entries(merged.latency).map(([operation, histogram]) => [
        operation,
        {
          p50: percentile(histogram, 50),
          p99: percentile(histogram, 99),
          p999: percentile(histogram, 99.9),
          count: Object.values(histogram).reduce((sum, n) => sum + n, 0),
        },
      ]),
    ),
    measurement: merged,
    cluster,
  };
}

const ms = (value: number | null) => (value === null ? "—" : `${value.toFixed(1)} ms`);

export function describeRunStatus(status: RunStatus): string {
  const { run } = status;
  const pct = (value: number | null) => (value === null ? "—" : `${(value * 100).toFixed(1)} %`);
  const lines = [
    `load test ${run.runId}: ${run.scenario} / ${run.design} at scale ${run.scale}, ${run.tasks} task(s), ${run.durationS} s from ${new Date(run.startedAt).toISOString()}`,
    `  writes: ${status.writes} (${pct(status.writeRatio)} of target); reads: ${status.reads} (${pct(status.readRatio)} of target); behind: ${status.behind}`,
    ...status.shares.map(
      (share) =>
        `  task ${share.task}: ${share.state}${share.host === null ? "" : ` (${share.host})`}, ${share.drivenS.toFixed(0)} s driven, ${share.writes} writes, ${pct(share.writeRatio)} of target${share.failed === undefined ? "" : `: ${share.failed}`}`,
    ),
    ...Object.entries(status.latency).map(
      ([operation, l]) =>
        `  ${operation}: p50 ${ms(l.p50)}, p99 ${ms(l.p99)}, p99.9 ${ms(l.p999)} over ${l.count}`,
    ),
    ...(Object.keys(status.errors).length === 0
      ? ["  errors: none"]
      : [
          `  errors: ${Object.entries(status.errors)
            .map(([code, n]) => `${code} ${n}`)
            .join(", ")}`,
        ]),
    ...describeCluster(status.cluster),
  ];
  return `${lines.join("\n")}\n`;
}

const HOT_TABLETS_SHOWN = 5;

/** A recorded (hex) key as the heatmap shows keys; empty is the table's edge. */
const hexKey = (hex: string, edge: string) => (hex === "" ? edge : displayKey(Buffer.from(hex, "hex")));

function describeCluster(cluster: ClusterOverRun): string[] {
  if (cluster.samples === 0)
    return ["  cluster: not watched (no admin API on the emulator, or task 0 has not polled yet)"];
  const cpu = (name: string, over: ClusterOverRun["average"]) =>
    over === null
      ? `${name} not reported`
      : `${name} ${(over.mean * 100).toFixed(0)} % (most ${(over.max * 100).toFixed(0)} %)`;
  const shown = cluster.hotTablets.slice(0, HOT_TABLETS_SHOWN);
  return [
    `  cluster over ${cluster.samples} poll(s): ${cpu("average CPU", cluster.average)}, ${cpu("hottest node", cluster.hottest)}`,
    cluster.hotTablets.length === 0
      ? "  hot tablets: none reported"
      : `  hot tablets: ${cluster.hotTablets.length} range(s); hottest ${shown
          .map(
            (range) =>
              `[${hexKey(range.startKey, "start")}, ${hexKey(range.endKey, "end")}] ${range.maxCpuPercent.toFixed(0)} %`,
          )
          .join(", ")}`,
    ...Object.entries(cluster.errors).map(([error, polls]) => `  cluster poll failed ${polls}×: ${error}`),
  ];
}

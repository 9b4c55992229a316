/**
 * The cluster over a load test: every poll, one task (index 0) asks the instance admin API for the
 * table's hot tablets (ListHotTablets, as `diagnose` does) and Cloud Monitoring for the cluster's
 * CPU since its last poll, and records the answer as one cell of the run's cluster row in
 * keyspread's reserved range, keyed by the window's end (a restarted task appends after the last
 * one). `loadtest status` reads the samples back; `--calibrate` takes the hottest node's and the
 * average CPU from them. A source that fails is recorded with its error and the run goes on: a
 * missing monitoring permission does not stop a load test.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { v2 } from "@google-cloud/bigtable";
import {
  type ClusterInfo,
  chooseCluster,
  listClusters,
  listHotTablets,
} from "../diagnose/gather/instance-admin.js";
import { importOptionalPackage } from "../io/optional-package.js";
import type { Store } from "../store/store.js";
import { RESERVED_PREFIX } from "../table/schema-guard.js";
import { clusterCpu, type MonitoredCluster } from "./cluster-cpu.js";
import type { ClusterCpu } from "./prediction.js";

export const CLUSTER_ROW_KEY = Buffer.concat([RESERVED_PREFIX, Buffer.from("keyspread:loadtest:cluster")]);
const SAMPLE = "sample:";

/** A hot tablet as a sample records it (keys in hex: they are bytes). */
export interface RecordedHotTablet {
  startKey: string;
  endKey: string;
  startMs: number;
  endMs: number;
  cpuPercent: number;
}

export interface ClusterSample {
  fromMs: number;
  toMs: number;
  cpu: ClusterCpu;
  hotTablets: RecordedHotTablet[];
  /** What could not be read this time, per source. */
  errors: string[];
}

export interface ClusterSource {
  observe(from: Date, to: Date): Promise<ClusterSample>;
}

type InstanceAdminClient = InstanceType<typeof v2.BigtableInstanceAdminClient>;

/** Hot tablets from the admin client, CPU from Cloud Monitoring; each source's failure is kept as an error. */
export function adminClusterSource(options: {
  admin: InstanceAdminClient;
  /** projects/P/instances/I/clusters/C */
  clusterName: string;
  tableId: string;
  monitored: MonitoredCluster;
}): ClusterSource {
  return {
    async observe(from, to) {
      const errors: string[] = [];
      const failed = (error: unknown) => {
        errors.push(error instanceof Error ? error.message : String(error));
        return undefined;
      };
      const [tablets, cpu] = await Promise.all([
        listHotTablets(options.admin, options.clusterName, options.tableId, [{ start: from, end: to }]).catch(
          failed,
        ),
        clusterCpu(options.monitored, from, to).catch(failed),
      ]);
      return {
        fromMs: from.getTime(),
        toMs: to.getTime(),
        cpu: cpu ?? {},
        hotTablets: (tablets ?? []).map((tablet) => ({
          startKey: tablet.startKey.toString("hex"),
          endKey: tablet.endKey.toString("hex"),
          startMs: tablet.startTime.getTime(),
          endMs: tablet.endTime.getTime(),
          cpuPercent: tablet.nodeCpuPercent,
        })),
        errors,
      };
    },
  };
}

export interface AdminWatchConfig {
  projectId: string;
  instanceId: string;
  tableId: string;
  /** The cluster to watch; default the instance's only one. */
  cluster?: string;
  /** Options of the instance admin client (a test points it at its own server). */
  adminOptions?: ConstructorParameters<typeof v2.BigtableInstanceAdminClient>[0];
  monitoringEndpoint?: string;
  /** Default: the admin client's own credentials. */
  accessToken?: () => Promise<string | null | undefined>;
}

/** An admin client on the instance, the watched cluster chosen (an unknown one lists the instance's). */
export async function openAdminClusterSource(
  config: AdminWatchConfig,
): Promise<{ source: ClusterSource; cluster: ClusterInfo; close: () => Promise<void> }> {
  const { v2: clients } = await importOptionalPackage(
    "@google-cloud/bigtable",
    () => import("@google-cloud/bigtable"),
  );
  const admin = new clients.BigtableInstanceAdminClient({
    projectId: config.projectId,
    ...config.adminOptions,
  });
  const instanceName = `projects/${config.projectId}/instances/${config.instanceId}`;
  try {
    const cluster = chooseCluster(await listClusters(admin, instanceName), config.cluster);
    const source = adminClusterSource({
      admin,
      clusterName: `${instanceName}/clusters/${cluster.id}`,
      tableId: config.tableId,
      monitored: {
        projectId: config.projectId,
        instanceId: config.instanceId,
        clusterId: cluster.id,
        ...(config.monitoringEndpoint === undefined ? {} : { endpoint: config.monitoringEndpoint }),
        accessToken: config.accessToken ?? (() => admin.auth.getAccessToken()),
      },
    });
    return { source, cluster, close: () => admin.close() };
  } catch (error) {
    await admin.close();
    throw error;
  }
}

export async function recordClusterSample(store: Store, sample: ClusterSample): Promise<void> {
  const qualifier = `${SAMPLE}${String(sample.toMs).padStart(15, "0")}`;
  const { failed } = await store.write([
    {
      type: "put",
      key: CLUSTER_ROW_KEY,
      cells: new Map([[qualifier, Buffer.from(JSON.stringify(sample))]]),
    },
  ]);
  const [failure] = failed;
  if (failure !== undefined)
    throw new Error(`${store.name}: could not record a cluster sample: ${failure.reason}`);
}

/** The run's cluster samples, oldest first. */
export async function readClusterSamples(store: Store): Promise<ClusterSample[]> {
  const row = await store.get(CLUSTER_ROW_KEY);
  if (row === undefined) return [];
  return [...row.cells.entries()]
    .filter(([qualifier]) => qualifier.startsWith(SAMPLE))
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([, value]) => JSON.parse(value.toString()) as ClusterSample);
}

export interface WatchOptions {
  source: ClusterSource;
  store: Store;
  /** Epoch ms the first window starts at when none was recorded (the run's start). */
  startMs: number;
  /** Epoch ms no window goes past (the run's end: a task restarted after it records nothing new). */
  endMs: number;
  pollMs: number;
  signal: AbortSignal;
  now?: () => number;
}

/** Polls until `signal`, then once more for the last window; resumes after the last recorded sample. */
export async function watchCluster(options: WatchOptions): Promise<void> {
  const now = options.now ?? Date.now;
  let fromMs = (await readClusterSamples(options.store)).at(-1)?.toMs ?? options.startMs;
  const poll = async () => {
    const toMs = Math.min(now(), options.endMs);
    if (toMs <= fromMs) return;
    await recordClusterSample(options.store, await options.source.observe(new Date(fromMs), new Date(toMs)));
    fromMs = toMs;
  };
  while (!options.signal.aborted) {
    await sleep(options.pollMs, undefined, { signal: options.signal }).catch(() => undefined);
    await poll();
  }
}

/** Mean and most of one CPU figure over the samples that reported it, weighted by their windows. */
export interface CpuOverRun {
  mean: number;
  max: number;
  samples: number;
}

export interface HotRangeOverRun {
  startKey: string;
  endKey: string;
  maxCpuPercent: number;
  /** Distinct hot periods of this range the admin API reported. */
  periods: number;
}

export interface ClusterOverRun {
  samples: number;
  average: CpuOverRun | null;
  hottest: CpuOverRun | null;
  /** Every key range reported hot, hottest first. */
  hotTablets: HotRangeOverRun[];
  /** Each distinct error with how many polls hit it. */
  errors: Record<string, number>;
}

export function summarizeCluster(samples: readonly ClusterSample[]): ClusterOverRun {
  const over = (pick: (cpu: ClusterCpu) => number | undefined): CpuOverRun | null => {
    let weighted = 0;
    let weight = 0;
    let max = 0;
    let count = 0;
    for (const sample of samples) {
      const value = pick(sample.cpu);
      if (value === undefined) continue;
      const width = Math.max(1, sample.toMs - sample.fromMs);
      weighted += value * width;
      weight += width;
      max = Math.max(max, value);
      count++;
    }
    return count === 0 ? null : { mean: weighted / weight, max, samples: count };
  };
  const ranges = new Map<string, HotRangeOverRun & { seen: Set<number> }>();
  const errors: Record<string, number> = {};
  for (const sample of samples) {
    for (const error of sample.errors) errors[error] = (errors[error] ?? 0) + 1;
    for (const tablet of sample.hotTablets) {
      const id = `${tablet.startKey}:${tablet.endKey}`;
      const range = ranges.get(id) ?? {
        startKey: tablet.startKey,
        endKey: tablet.endKey,
        maxCpuPercent: 0,
        periods: 0,
        seen: new Set<number>(),
      };
      // Consecutive polls may both report one hot period: count it once.
      if (!range.seen.has(tablet.startMs)) {
        range.seen.add(tablet.startMs);
        range.periods++;
      }
      range.maxCpuPercent = Math.max(range.maxCpuPercent, tablet.cpuPercent);
      ranges.set(id, range);
    }
  }
  return {
    samples: samples.length,
    average: over((cpu) => cpu.average),
    hottest: over((cpu) => cpu.hottest),
    hotTablets: [...ranges.values()]
      .map(({ seen: _seen, ...range }) => range)
      .sort((a, b) => b.maxCpuPercent - a.maxCpuPercent),
    errors,
  };
}

/** The CPU `--calibrate` and the side-by-side use: what the flags say, else the run's recorded means. */
export function runCpu(flags: ClusterCpu, cluster: ClusterOverRun): ClusterCpu {
  const hottest = flags.hottest ?? cluster.hottest?.mean;
  const average = flags.average ?? cluster.average?.mean;
  return {
    ...(hottest === undefined ? {} : { hottest }),
    ...(average === undefined ? {} : { average }),
  };
}

/**
 * A cluster's CPU over a window, from Cloud Monitoring (ListTimeSeries, its REST form, with the
 * Bigtable client's own credentials — no monitoring client library needed): the mean of
 * `bigtable.googleapis.com/cluster/cpu_load` (the nodes' average) and of `cpu_load_hottest_node`,
 * both shares of a node (0.42 = 42 %), aligned per minute. Bigtable writes these points every
 * minute, a few minutes late, so a window that is too recent may have none (then `undefined`).
 */

import type { ClusterCpu } from "./prediction.js";

export const CPU_LOAD = "bigtable.googleapis.com/cluster/cpu_load";
export const CPU_LOAD_HOTTEST_NODE = "bigtable.googleapis.com/cluster/cpu_load_hottest_node";
export const MONITORING_ENDPOINT = "https://monitoring.googleapis.com";

export interface MonitoredCluster {
  projectId: string;
  instanceId: string;
  clusterId: string;
  /** Default https://monitoring.googleapis.com (a test points it at its own server). */
  endpoint?: string;
  /** An OAuth access token with monitoring.timeSeries.list (the admin client's `auth.getAccessToken`). */
  accessToken: () => Promise<string | null | undefined>;
}

/** Monitoring answered with an error: its HTTP status and message (403: the missing permission). */
export class MonitoringError extends Error {
  override readonly name = "MonitoringError";
  constructor(
    readonly metric: string,
    readonly status: number,
    readonly detail: string,
  ) {
    super(
      status === 403
        ? `reading ${metric} from Cloud Monitoring: 403 — the caller needs monitoring.timeSeries.list on the project (roles/monitoring.viewer has it): ${detail}`
        : `reading ${metric} from Cloud Monitoring: HTTP ${status}: ${detail}`,
    );
  }
}

interface TimeSeriesPage {
  timeSeries?: { points?: { value?: { doubleValue?: number } }[] }[];
  nextPageToken?: string;
}

/** Mean cpu_load and cpu_load_hottest_node over `[from, to]`, each left out when Monitoring has no point. */
export async function clusterCpu(cluster: MonitoredCluster, from: Date, to: Date): Promise<ClusterCpu> {
  const [average, hottest] = await Promise.all([
    meanOf(cluster, CPU_LOAD, from, to),
    meanOf(cluster, CPU_LOAD_HOTTEST_NODE, from, to),
  ]);
  // A metric with no point in the window is left out, not zero.
  return {
    ...(average === undefined ? {} : { average }),
    ...(hottest === undefined ? {} : { hottest }),
  };
}

async function meanOf(
  cluster: MonitoredCluster,
  metric: string,
  from: Date,
  to: Date,
): Promise<number | undefined> {
  const values: number[] = [];
  let pageToken = "";
  do {
    const page = await listTimeSeries(cluster, metric, from, to, pageToken);
    for (const series of page.timeSeries ?? []) {
      for (const point of series.points ?? []) {
        if (typeof point.value?.doubleValue === "number") values.push(point.value.doubleValue);
      }
    }
    pageToken = page.nextPageToken ?? "";
  } while (pageToken !== "");
  return values.length === 0 ? undefined : values.reduce((sum, value) => sum + value, 0) / values.length;
}

async function listTimeSeries(
  cluster: MonitoredCluster,
  metric: string,
  from: Date,
  to: Date,
  pageToken: string,
): Promise<TimeSeriesPage> {
  const url = new URL(
    `/v3/projects/${encodeURIComponent(cluster.projectId)}/timeSeries`,
    cluster.endpoint ?? MONITORING_ENDPOINT,
  );
  const query = url.searchParams;
  query.set(
    "filter",
    `metric.type = "${metric}" AND resource.type = "bigtable_cluster" AND resource.labels.instance = "${cluster.instanceId}" AND resource.labels.cluster = "${cluster.clusterId}"`,
  );
  query.set("interval.startTime", from.toISOString());
  query.set("interval.endTime", to.toISOString());
  query.set("aggregation.alignmentPeriod", "60s");
  query.set("aggregation.perSeriesAligner", "ALIGN_MEAN");
  if (pageToken !== "") query.set("pageToken", pageToken);
  const token = await cluster.accessToken();
  const response = await fetch(url, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  if (!response.ok) throw new MonitoringError(metric, response.status, (await response.text()).slice(0, 500));
  return (await response.json()) as TimeSeriesPage;
}

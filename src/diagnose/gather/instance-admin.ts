/**
 * The instance admin calls a diagnosis makes, through the official client's generated
 * `v2.BigtableInstanceAdminClient`: the instance's clusters (to check the cluster id and read its
 * nodes and storage) and ListHotTablets, paged by the client, one request per 48-hour window.
 * Errors a user will hit say what to do: the missing IAM permission, an unknown cluster.
 */
import type { v2 } from "@google-cloud/bigtable";
import type { HotTablet } from "../decode/hot-tablet.js";
import { tableIdOf } from "../decode/hot-tablet.js";
import type { TimeWindow } from "./hot-tablet-windows.js";

type InstanceAdminClient = InstanceType<typeof v2.BigtableInstanceAdminClient>;

export interface ClusterInfo {
  id: string;
  nodes: number;
  storage: "ssd" | "hdd";
}

const PERMISSION_DENIED = 7;
const NOT_FOUND = 5;

/** `--cluster` names no cluster of the instance, or none is named where there are several. */
export class ClusterChoiceError extends Error {
  override readonly name = "ClusterChoiceError";
  constructor(
    /** The id asked for; undefined when none was. */
    readonly wanted: string | undefined,
    /** The instance's cluster ids. */
    readonly clusters: readonly string[],
  ) {
    const ids = clusters.join(", ") || "none";
    super(
      wanted === undefined
        ? `--cluster: the instance has ${clusters.length} clusters (${ids}); name one`
        : `--cluster ${wanted}: no such cluster in the instance; its clusters: ${ids}`,
    );
  }
}

/** An admin call the API refused: the call, the cluster it named, and the gRPC status (7 permission denied, 5 not found). */
export class AdminCallError extends Error {
  override readonly name = "AdminCallError";
  constructor(
    readonly call: string,
    readonly status: number | undefined,
    message: string,
    /** The IAM permission the call needs, when it was refused for want of it. */
    readonly permission?: string,
    /** The cluster the call named, when the API says it does not exist. */
    readonly cluster?: string,
  ) {
    super(message);
  }
}

/** The gRPC status code of a client error, if it has one. */
const codeOf = (error: unknown) => (error as { code?: unknown })?.code;

function adminError(error: unknown, call: string, permission: string): AdminCallError {
  const message = (error as Error)?.message ?? String(error);
  const code = codeOf(error);
  const status = typeof code === "number" ? code : undefined;
  if (status === PERMISSION_DENIED)
    return new AdminCallError(
      call,
      status,
      `${call}: PERMISSION_DENIED — the caller needs the IAM permission ${permission} on the instance (roles/bigtable.admin has it, or grant a custom role with it): ${message}`,
      permission,
    );
  return new AdminCallError(call, status, `${call}: ${message}`);
}

export async function listClusters(admin: InstanceAdminClient, instanceName: string): Promise<ClusterInfo[]> {
  const [response] = await admin.listClusters({ parent: instanceName }).catch((error: unknown) => {
    throw adminError(error, `listing the clusters of ${instanceName}`, "bigtable.clusters.list");
  });
  return (response.clusters ?? []).map((cluster) => ({
    id: tableIdOf(cluster.name ?? ""),
    nodes: cluster.serveNodes ?? 0,
    // StorageType: 1 SSD, 2 HDD (the client may give the enum's name).
    storage: cluster.defaultStorageType === 2 || cluster.defaultStorageType === "HDD" ? "hdd" : "ssd",
  }));
}

/** The cluster named, or the only one; an unknown or missing id lists the instance's clusters. */
export function chooseCluster(clusters: readonly ClusterInfo[], wanted: string | undefined): ClusterInfo {
  const ids = clusters.map((cluster) => cluster.id);
  const [only, ...others] = clusters;
  if (wanted === undefined) {
    if (only !== undefined && others.length === 0) return only;
    throw new ClusterChoiceError(undefined, ids);
  }
  const found = clusters.find((cluster) => cluster.id === wanted);
  if (!found) throw new ClusterChoiceError(wanted, ids);
  return found;
}

const timestamp = (date: Date) => ({
  seconds: Math.floor(date.getTime() / 1000),
  nanos: (date.getTime() % 1000) * 1e6,
});
const dateOf = (
  time:
    | { seconds?: number | string | { toString(): string } | null; nanos?: number | null }
    | null
    | undefined,
) => new Date(Number(String(time?.seconds ?? 0)) * 1000 + Math.floor((time?.nanos ?? 0) / 1e6));

/** Every hot tablet of `tableId` in the windows (all pages of each window's answer). */
export async function listHotTablets(
  admin: InstanceAdminClient,
  clusterName: string,
  tableId: string,
  windows: readonly TimeWindow[],
  pageSize = 100,
): Promise<HotTablet[]> {
  const tablets: HotTablet[] = [];
  for (const window of windows) {
    const request = {
      parent: clusterName,
      startTime: timestamp(window.start),
      endTime: timestamp(window.end),
      pageSize,
    };
    try {
      for await (const tablet of admin.listHotTabletsAsync(request, { autoPaginate: false })) {
        if (tableIdOf(tablet.tableName ?? "") !== tableId) continue;
        tablets.push({
          table: tableId,
          startKey: Buffer.from(tablet.startKey ?? "", "utf8"),
          endKey: Buffer.from(tablet.endKey ?? "", "utf8"),
          startTime: dateOf(tablet.startTime),
          endTime: dateOf(tablet.endTime),
          nodeCpuPercent: tablet.nodeCpuUsagePercent ?? 0,
        });
      }
    } catch (error) {
      if (codeOf(error) === NOT_FOUND)
        throw new AdminCallError(
          "listing hot tablets",
          NOT_FOUND,
          `listing hot tablets: cluster ${clusterName} does not exist: ${(error as Error).message}`,
          undefined,
          clusterName,
        );
      throw adminError(error, `listing hot tablets of ${clusterName}`, "bigtable.clusters.listHotTablets");
    }
  }
  return tablets;
}

/**
 * Where each path's requests go. Single-cluster routing sends every request to its cluster and
 * keeps read-your-writes for the path; when that cluster is down the path waits for a manual
 * failover (Google, "Failovers", https://cloud.google.com/bigtable/docs/failovers), modelled as the
 * operator pointing it at the nearest surviving cluster. Multi-cluster routing sends each request to
 * the nearest available cluster it allows and fails over by itself; "clusters in a region are
 * considered equidistant" (Google, MultiClusterRoutingUseAny in the admin API reference).
 *
 * "Nearest" here: a request goes to an allowed cluster in its own region (split evenly when the
 * region has several); with none there, Google publishes no distances between regions, so the
 * others count as equidistant and share it evenly (an assumption, said in docs/simulator.md).
 */
import {
  DEFAULT_PATH,
  profileOf,
  type ReplicaCluster,
  type Replication,
  WRITES_PATH,
} from "../scenario/replication-topology.js";

export interface PathRoute {
  path: string;
  profile: string;
  routing: "single-cluster" | "multi-cluster";
  /** Share of the path's requests each cluster serves, by cluster name (sums to 1). */
  shares: Record<string, number>;
  /** A single-cluster path whose cluster is down: served only once someone fails it over by hand. */
  manualFailover: boolean;
}

/** Where requests come from: the scenario's shares, else evenly from the clusters' regions. */
export function clientRegions(replication: Replication): Record<string, number> {
  if (replication.clients) return replication.clients;
  const regions = [...new Set(replication.clusters.map((cluster) => cluster.region))];
  return Object.fromEntries(regions.map((region) => [region, 1 / regions.length]));
}

/** The clusters a request from `region` goes to among `candidates`: its own region's, else all of them. */
function nearest(candidates: readonly ReplicaCluster[], region: string): ReplicaCluster[] {
  const local = candidates.filter((cluster) => cluster.region === region);
  return local.length > 0 ? local : [...candidates];
}

/** Every cluster an app `profile` may route to is down (no profile: every cluster of the instance). */
export class NowhereToFailOverError extends Error {
  override readonly name = "NowhereToFailOverError";
  constructor(readonly profile: string | undefined) {
    super(
      profile === undefined
        ? "replication: every cluster is down at once; nothing serves the paths"
        : `replication: every cluster app profile "${profile}" allows is down; it has nowhere to fail over`,
    );
  }
}

/** Each path's route with the clusters in `down` unavailable. */
export function routePaths(
  replication: Replication,
  readNames: readonly string[],
  down: ReadonlySet<string> = new Set(),
): PathRoute[] {
  const healthy = replication.clusters.filter((cluster) => !down.has(cluster.name));
  if (healthy.length === 0) throw new NowhereToFailOverError(undefined);
  const clients = clientRegions(replication);
  return [WRITES_PATH, ...readNames].map((path) => {
    const profile = profileOf(replication, path);
    if (!profile) throw new Error(`replication.paths: no profile for "${path}" (nor ${DEFAULT_PATH})`);
    const shares: Record<string, number> = {};
    const add = (clusters: readonly ReplicaCluster[], share: number) => {
      for (const cluster of clusters)
        shares[cluster.name] = (shares[cluster.name] ?? 0) + share / clusters.length;
    };
    let manualFailover = false;
    if (profile.routing === "single-cluster") {
      const home = replication.clusters.find((cluster) => cluster.name === profile.cluster);
      if (!home) {
        throw new Error(
          `replication: app profile "${profile.name}" routes to cluster "${profile.cluster}", which replication.clusters does not declare`,
        );
      }
      manualFailover = down.has(home.name);
      add(manualFailover ? nearest(healthy, home.region) : [home], 1);
    } else {
      const allowed = healthy.filter((cluster) => profile.clusters?.includes(cluster.name) ?? true);
      if (allowed.length === 0) throw new NowhereToFailOverError(profile.name);
      for (const [region, share] of Object.entries(clients)) add(nearest(allowed, region), share);
    }
    return { path, profile: profile.name, routing: profile.routing, shares, manualFailover };
  });
}

/** What a read path can see of recent writes. */
export interface PathConsistency {
  path: string;
  /** Reads and writes go to the same one cluster: a read sees every write acknowledged before it. */
  readYourWrites: boolean;
  /** Oldest a read's view can be (s): 0 with read-your-writes, else the replication lag. */
  stalenessS: number;
}

/**
 * Google, "Replication overview" (consistency model): replication is eventually consistent; an app
 * profile with single-cluster routing gives read-your-writes to the requests that share its
 * cluster. A read path has it when it and the writes route, unfailed, to the same single cluster.
 */
export function pathConsistency(
  routes: readonly PathRoute[],
  replication: Replication,
  lagS: number,
): PathConsistency[] {
  const writes = routes.find((route) => route.path === WRITES_PATH);
  if (!writes) throw new Error(`replication: no route for the "${WRITES_PATH}" path`);
  const profile = (route: PathRoute) => {
    const found = replication.appProfiles.find((each) => each.name === route.profile);
    if (!found)
      throw new Error(
        `replication: path "${route.path}" routes through an undeclared app profile "${route.profile}"`,
      );
    return found;
  };
  const writeHome =
    writes.routing === "single-cluster" && !writes.manualFailover ? profile(writes) : undefined;
  return routes
    .filter((route) => route.path !== WRITES_PATH)
    .map((route) => {
      const read = profile(route);
      const readYourWrites =
        writeHome?.routing === "single-cluster" &&
        read.routing === "single-cluster" &&
        !route.manualFailover &&
        read.cluster === writeHome.cluster;
      return { path: route.path, readYourWrites, stalenessS: readYourWrites ? 0 : lagS };
    });
}

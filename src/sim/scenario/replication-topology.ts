/**
 * A scenario's replication: the instance's clusters, its app profiles (how each routes requests),
 * which profile each path uses (the writes and every declared read), where requests come from, and
 * the clusters it loses for a while. Google, "Replication overview"
 * (https://cloud.google.com/bigtable/docs/replication-overview) and "App profiles"
 * (https://cloud.google.com/bigtable/docs/app-profiles). Pure: parsing and cross-checks only.
 */
import * as v from "valibot";
import { durationField } from "./duration-field.js";

const name = (field: string) =>
  v.pipe(
    v.string(`${field} must be a string`),
    v.regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, `${field} uses letters, digits, . _ - (not starting with . _ -)`),
  );

const ClusterSchema = v.strictObject({
  name: name("replication.clusters[].name"),
  /** Google Cloud region (`us-east1`): requests go to the nearest cluster, and a region's clusters are equidistant. */
  region: name("replication.clusters[].region"),
  /** Nodes of this cluster; default the nodes the single-cluster answer needs. */
  nodes: v.optional(
    v.pipe(
      v.number("replication.clusters[].nodes must be a number"),
      v.integer("replication.clusters[].nodes must be a whole number"),
      v.minValue(1, "replication.clusters[].nodes must be at least 1"),
    ),
  ),
});

const AppProfileSchema = v.variant(
  "routing",
  [
    /** Every request to one cluster: read-your-writes on the path, no automatic failover. */
    v.strictObject({
      name: name("replication.appProfiles[].name"),
      routing: v.literal("single-cluster"),
      cluster: name("replication.appProfiles[].cluster"),
    }),
    /** To the nearest available of `clusters` (default all), failing over automatically; eventually consistent. */
    v.strictObject({
      name: name("replication.appProfiles[].name"),
      routing: v.literal("multi-cluster"),
      clusters: v.optional(v.array(name("replication.appProfiles[].clusters[]"))),
    }),
  ],
  'replication.appProfiles[].routing must be "single-cluster" or "multi-cluster"',
);

const duration = durationField;

const FailureSchema = v.strictObject({
  cluster: name("replication.failures[].cluster"),
  /** When the cluster becomes unavailable, from the start of the run. */
  at: duration("replication.failures[].at"),
  /** How long it stays unavailable. */
  for: duration("replication.failures[].for"),
});

export const ReplicationSchema = v.strictObject({
  clusters: v.pipe(
    v.array(ClusterSchema),
    v.minLength(
      2,
      "replication.clusters needs at least two clusters (one cluster is the scenario's `cluster`)",
    ),
  ),
  appProfiles: v.pipe(
    v.array(AppProfileSchema),
    v.minLength(1, "replication.appProfiles needs at least one profile"),
  ),
  /** The profile each path uses: `writes` and each read pattern by name; `default` for the rest. */
  paths: v.record(name("replication.paths key"), name("replication.paths value")),
  /** Where requests come from: share per region (they sum to 1); default evenly from the clusters' regions. */
  clients: v.optional(
    v.record(
      name("replication.clients key"),
      v.pipe(
        v.number("replication.clients values must be numbers"),
        v.minValue(0, "replication.clients values must be ≥ 0"),
      ),
    ),
  ),
  /** Gone: `cluster.autoscaling` is the one autoscaling setting (the clusters autoscale with it). */
  autoscaling: v.optional(
    v.custom<never>(
      () => false,
      "replication.autoscaling is gone: declare cluster.autoscaling ({ cpuTarget, storageTargetGiBPerNode, minNodes, maxNodes }) — the one autoscaling setting, which also sets Google's CPU target for multi-cluster routing",
    ),
  ),
  /** Share of a write's CPU that pulling it from another cluster costs; default in model-constants.ts. */
  cpuShare: v.optional(
    v.pipe(
      v.number("replication.cpuShare must be a number"),
      v.minValue(0, "replication.cpuShare must be ≥ 0"),
      v.maxValue(1, "replication.cpuShare must be ≤ 1"),
    ),
  ),
  /** How long a write takes to reach the other clusters; default in model-constants.ts. */
  lag: v.optional(duration("replication.lag")),
  failures: v.optional(v.array(FailureSchema), []),
});

export type Replication = v.InferOutput<typeof ReplicationSchema>;
export type ReplicaCluster = Replication["clusters"][number];
export type AppProfile = Replication["appProfiles"][number];

/** The path every write takes, next to the read patterns' names. */
export const WRITES_PATH = "writes";
/** The profile of every path `paths` does not name. */
export const DEFAULT_PATH = "default";

/**
 * Cross-checks a parsed replication against the scenario's read patterns: names unique, profiles
 * and failures name clusters that exist, every path names a profile and a path that exists, and
 * every path has a profile. Throws naming the field and what is allowed.
 */
export function checkReplication(replication: Replication, readNames: readonly string[]): void {
  const fail = (message: string): never => {
    throw new Error(`invalid scenario: replication.${message}`);
  };
  const clusters = replication.clusters.map((cluster) => cluster.name);
  const profiles = replication.appProfiles.map((profile) => profile.name);
  for (const [field, names] of [
    ["clusters", clusters],
    ["appProfiles", profiles],
  ] as const) {
    const twice = names.find((each, index) => names.indexOf(each) !== index);
    if (twice !== undefined) fail(`${field}: "${twice}" is named twice`);
  }
  const knownCluster = (field: string, cluster: string) => {
    if (!clusters.includes(cluster))
      fail(`${field}: "${cluster}" is not a cluster; clusters are ${clusters.join(", ")}`);
  };
  for (const profile of replication.appProfiles) {
    const field = `appProfiles "${profile.name}"`;
    if (profile.routing === "single-cluster") knownCluster(`${field}.cluster`, profile.cluster);
    else {
      for (const cluster of profile.clusters ?? []) knownCluster(`${field}.clusters`, cluster);
      if (profile.clusters?.length === 0) fail(`${field}.clusters: empty; leave it out for every cluster`);
    }
  }
  const paths = [WRITES_PATH, ...readNames];
  for (const [path, profile] of Object.entries(replication.paths)) {
    if (path !== DEFAULT_PATH && !paths.includes(path))
      fail(`paths: "${path}" is not a path; paths are ${[...paths, DEFAULT_PATH].join(", ")}`);
    if (!profiles.includes(profile))
      fail(`paths.${path}: "${profile}" is not an app profile; profiles are ${profiles.join(", ")}`);
  }
  const unrouted = paths.filter((path) => profileOf(replication, path) === undefined);
  if (unrouted.length > 0)
    fail(`paths: no profile for ${unrouted.join(", ")}; name each, or set paths.default`);
  if (replication.clients) {
    const total = Object.values(replication.clients).reduce((sum, share) => sum + share, 0);
    if (Math.abs(total - 1) > 1e-6) fail(`clients: shares sum to ${total}; they must sum to 1`);
  }
  for (const failure of replication.failures) {
    knownCluster("failures[].cluster", failure.cluster);
    if (!(failure.for > 0)) fail(`failures[].for must be greater than 0`);
  }
}

/** The app profile a path uses: its own, else the default's. */
export function profileOf(replication: Replication, path: string): AppProfile | undefined {
  const name = replication.paths[path] ?? replication.paths[DEFAULT_PATH];
  return replication.appProfiles.find((profile) => profile.name === name);
}

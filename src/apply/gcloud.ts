/**
 * An instance plan as a shell script of gcloud commands: `gcloud bigtable instances create` with a
 * `--cluster-config` per cluster, `gcloud bigtable instances tables create` with the column family's
 * GC rule and the split keys, and `gcloud bigtable app-profiles create` per profile. Flags as gcloud
 * defines them (google-cloud-sdk-unofficial/google-cloud-sdk: lib/googlecloudsdk/command_lib/bigtable/arguments.py
 * at commit 1ec5a583e6dbc38a588122a2f228415082524f4e for --cluster-config's keys, routing, priority and
 * Data Boost; lib/googlecloudsdk/api_lib/bigtable/tables.py at 01f043c2289dbd5b8de55d1d271ead804f9448f0
 * for `family:maxage=…||maxversions=…` and --splits); gcloud.test.ts checks every flag printed
 * against that list. Pure: plan in, text out.
 */
import type { InstancePlan, PlanAppProfile, PlanCluster } from "./instance-plan.js";
import { textKey } from "./terraform.js";

/** One shell word: single-quoted unless it is plainly safe. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_.,:=@%+/-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A command split over lines, one flag a line. */
const command = (words: readonly string[]) => words.join(" \\\n    ");

function clusterConfig(cluster: PlanCluster): string {
  const scaling = cluster.autoscaling;
  const pairs = [
    `id=${cluster.id}`,
    `zone=${cluster.zone}`,
    ...(scaling
      ? [
          `autoscaling-min-nodes=${scaling.minNodes}`,
          `autoscaling-max-nodes=${scaling.maxNodes}`,
          `autoscaling-cpu-target=${scaling.cpuTargetPercent}`,
          `autoscaling-storage-target=${scaling.storageTargetGiBPerNode}`,
        ]
      : [`nodes=${cluster.nodes}`]),
    `node-scaling-factor=node-scaling-factor-${cluster.nodeScalingFactor}x`,
  ];
  return `--cluster-config=${pairs.join(",")}`;
}

/** The scaling flags of `clusters create` and `clusters update`. */
function scalingFlags(cluster: PlanCluster): string[] {
  const scaling = cluster.autoscaling;
  return scaling
    ? [
        `--autoscaling-min-nodes=${scaling.minNodes}`,
        `--autoscaling-max-nodes=${scaling.maxNodes}`,
        `--autoscaling-cpu-target=${scaling.cpuTargetPercent}`,
        `--autoscaling-storage-target=${scaling.storageTargetGiBPerNode}`,
      ]
    : [`--num-nodes=${cluster.nodes}`];
}

/**
 * For an instance that exists: resize each cluster it has, create the ones it lacks (a cluster's
 * node scaling factor is chosen when it is created, so an existing one keeps its own).
 */
function resizeOrAddCluster(cluster: PlanCluster, instance: string): string {
  const where = [`--project="$PROJECT"`, `--instance=${shellWord(instance)}`];
  return [
    `if gcloud bigtable clusters describe ${cluster.id} ${where.join(" ")} >/dev/null 2>&1; then`,
    `  ${command([`gcloud bigtable clusters update ${cluster.id}`, ...where, ...scalingFlags(cluster)])}`,
    "else",
    `  ${command([
      `gcloud bigtable clusters create ${cluster.id}`,
      ...where,
      `--zone=${cluster.zone}`,
      `--node-scaling-factor=node-scaling-factor-${cluster.nodeScalingFactor}x`,
      ...scalingFlags(cluster),
    ])}`,
    "fi",
  ].join("\n");
}

/** No control characters (a shell argument holding them is unreadable in a script). */
const printable = (text: string) => [...text].every((char) => char >= " " && char !== "\u007f");

/**
 * --splits as one shell word: gcloud splits the list at commas, so keys holding one use gcloud's
 * alternate delimiter (`^;^a,b;c`, `gcloud topic escaping`); undefined when a key is not printable
 * UTF-8 text (gcloud sends each split key as its UTF-8 bytes).
 */
function splitsFlag(keys: readonly Buffer[]): string | undefined {
  const texts = keys.map(textKey);
  if (!texts.every((text): text is string => text !== undefined && printable(text))) return undefined;
  const delimiter = [",", ";", "|", "~", "!"].find((each) => texts.every((text) => !text.includes(each)));
  if (delimiter === undefined) return undefined;
  const list = texts.join(delimiter);
  return shellWord(`--splits=${delimiter === "," ? "" : `^${delimiter}^`}${list}`);
}

function appProfileCreate(profile: PlanAppProfile, instance: string): string {
  const { routing, isolation } = profile;
  return command([
    `gcloud bigtable app-profiles create ${shellWord(profile.id)}`,
    `--project="$PROJECT"`,
    `--instance=${shellWord(instance)}`,
    `--description=${shellWord(`keyspread: ${profile.paths.join(", ")}`)}`,
    ...(routing.kind === "single-cluster"
      ? [
          `--route-to=${routing.clusterId}`,
          ...(routing.transactionalWrites ? ["--transactional-writes"] : []),
        ]
      : [
          "--route-any",
          ...(routing.clusterIds.length > 0 ? [`--restrict-to=${routing.clusterIds.join(",")}`] : []),
        ]),
    ...(isolation.kind === "standard"
      ? [`--priority=${isolation.priority}`]
      : ["--data-boost", "--data-boost-compute-billing-owner=HOST_PAYS"]),
  ]);
}

export function instancePlanToGcloud(plan: InstancePlan): string {
  const { table, gcPolicy } = plan;
  const instance = plan.instanceId;
  const storage = plan.clusters[0]!.storageType.toLowerCase();
  const rule = [
    ...(gcPolicy.maxAgeS === undefined ? [] : [`maxage=${gcPolicy.maxAgeS}s`]),
    `maxversions=${gcPolicy.maxVersions}`,
  ].join("||");
  const splits = table.splitKeys.length === 0 ? "" : splitsFlag(table.splitKeys);
  const assumed = plan.clusters.filter((cluster) => cluster.zoneAssumed);
  const lines = [
    "#!/usr/bin/env bash",
    `# The instance keyspread recommends for ${plan.scenario}: design ${plan.design}. Generated: review before`,
    "# running (docs/apply.md says what was and was not exercised). Set PROJECT first.",
    ...plan.notes.map((note) => `# - ${note}`),
    ...(assumed.length > 0
      ? [
          `# - Zones assumed (${assumed.map((cluster) => `${cluster.id} in ${cluster.zone}`).join(", ")}): check Bigtable serves them, or pass --zone.`,
        ]
      : []),
    "set -eo pipefail",
    '[ -n "$PROJECT" ] || { echo "set PROJECT to the Google Cloud project id" >&2; exit 1; }',
    "",
    ...(table.exists
      ? [
          "# The instance and table exist (the design keeps the current key): resize its clusters, add the missing.",
          ...plan.clusters.map((cluster) => resizeOrAddCluster(cluster, instance)),
          "# The table keeps its column family's GC rule; to set the retention, e.g.:",
          `#   cbt -project "$PROJECT" -instance ${instance} setgcpolicy ${table.id} ${table.family} "${rule.replace("||", " or ")}"`,
        ]
      : [
          command([
            `gcloud bigtable instances create ${shellWord(instance)}`,
            `--project="$PROJECT"`,
            `--display-name=${shellWord(plan.displayName)}`,
            `--cluster-storage-type=${storage}`,
            ...plan.clusters.map(clusterConfig),
          ]),
          "",
          command([
            `gcloud bigtable instances tables create ${shellWord(table.id)}`,
            `--project="$PROJECT"`,
            `--instance=${shellWord(instance)}`,
            `--column-families=${shellWord(`${table.family}:${rule}`)}`,
            "--deletion-protection",
            ...(splits ? [splits] : []),
          ]),
          ...(splits === undefined
            ? [
                `# ${table.splitKeys.length} split keys are not printable UTF-8 text: create the table with`,
                "# `keyspread table create --store bigtable`, which pre-splits it at the salt's buckets.",
              ]
            : []),
        ]),
    ...plan.appProfiles.flatMap((profile) => ["", appProfileCreate(profile, instance)]),
  ];
  return `${lines.join("\n")}\n`;
}

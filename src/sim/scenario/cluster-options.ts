/**
 * The cluster options a scenario may declare besides its node count and storage type: the node
 * scaling factor, the autoscaler's own targets and tiered storage. Parsing and cross-checks only;
 * what each does to the model is in sim/cluster/node-scaling.ts, sim/cluster/storage-target.ts and
 * sim/cluster/tiered-storage.ts.
 *
 * - Node scaling factor (Google, "Scaling", https://cloud.google.com/bigtable/docs/scaling): 2
 *   treats two standard nodes as one compute node; node counts in increments of two (Admin API
 *   `Cluster.NodeScalingFactor`: otherwise INVALID_ARGUMENT); chosen when the cluster is created, not
 *   on HDD clusters, not in every zone.
 * - Autoscaling (Admin API `AutoscalingTargets`,
 *   https://cloud.google.com/php/docs/reference/cloud-bigtable/latest/Admin.V2.AutoscalingTargets):
 *   CPU target 10–80 %; storage target 2,560–5,120 GiB per SSD node (default 2,560), 8,192–16,384
 *   per HDD node (default 8,192). The maximum node count may be at most 10 × the minimum (Google
 *   Cloud blog, "Bigtable Autoscaling: Deep dive and cost saving analysis",
 *   https://cloud.google.com/blog/products/databases/dive-deep-into-bigtable-autoscaling-and-how-it-optimizes-costs).
 * - Tiered storage, Preview ("Tiered storage overview",
 *   https://cloud.google.com/bigtable/docs/tiered-storage): cells older than a threshold move to the
 *   infrequent-access tier; the threshold is at least 30 days (Admin API `TieredStorageRule`,
 *   `include_if_older_than`); SSD instances only.
 */
import * as v from "valibot";
import { durationField } from "./duration-field.js";
import { scenarioProblem } from "./scenario-error.js";

const DAY_S = 86_400;
/** The shortest age a cell may move to the infrequent-access tier at. */
export const MIN_COLD_AFTER_S = 30 * DAY_S;
/** An autoscaled cluster's maximum may be at most this many times its minimum. */
export const MAX_OVER_MIN_NODES = 10;

export type NodeScalingFactor = 1 | 2;

/** The autoscaler's storage target per node: Google's range and default, GiB per node. */
export const STORAGE_TARGET_GIB = {
  ssd: { min: 2560, max: 5120, default: 2560 },
  hdd: { min: 8192, max: 16384, default: 8192 },
} as const;

export const NodeScalingFactorSchema = v.picklist(
  [1, 2],
  "nodeScalingFactor must be 1 or 2 (2: two standard nodes as one compute node)",
);

const wholeNodes = (field: string) =>
  v.optional(
    v.pipe(
      v.number(`${field} must be a number`),
      v.integer(`${field} must be a whole number`),
      v.minValue(1, `${field} must be at least 1`),
    ),
  );

/** `cluster.autoscaling`: the one autoscaling setting (its range checks against storage are in `checkClusterOptions`). */
export const AutoscalingSchema = v.pipe(
  v.strictObject({
    cpuTarget: v.optional(
      v.pipe(
        v.number("cluster.autoscaling.cpuTarget must be a number"),
        v.minValue(0.1, "cluster.autoscaling.cpuTarget must be ≥ 0.1 (Bigtable allows 10–80 %)"),
        v.maxValue(0.8, "cluster.autoscaling.cpuTarget must be ≤ 0.8 (Bigtable allows 10–80 %)"),
      ),
    ),
    /** GiB per node the autoscaler keeps storage at; default Google's for the storage type. */
    storageTargetGiBPerNode: v.optional(
      v.pipe(
        v.number("cluster.autoscaling.storageTargetGiBPerNode must be a number"),
        v.integer("cluster.autoscaling.storageTargetGiBPerNode must be a whole number of GiB"),
      ),
    ),
    minNodes: wholeNodes("cluster.autoscaling.minNodes"),
    maxNodes: wholeNodes("cluster.autoscaling.maxNodes"),
  }),
  v.check(
    ({ minNodes, maxNodes }) => minNodes === undefined || maxNodes === undefined || maxNodes >= minNodes,
    "cluster.autoscaling.maxNodes must be ≥ cluster.autoscaling.minNodes",
  ),
  v.check(
    ({ minNodes, maxNodes }) =>
      minNodes === undefined || maxNodes === undefined || maxNodes <= MAX_OVER_MIN_NODES * minNodes,
    `cluster.autoscaling.maxNodes may be at most ${MAX_OVER_MIN_NODES} × cluster.autoscaling.minNodes (Bigtable's rule)`,
  ),
);

export type AutoscalingSetting = v.InferOutput<typeof AutoscalingSchema>;

export const TieredStorageSchema = v.strictObject({
  /** Cells older than this move to the infrequent-access tier (at least 30 days). */
  coldAfter: v.pipe(
    durationField("cluster.tieredStorage.coldAfter"),
    v.minValue(
      MIN_COLD_AFTER_S,
      "cluster.tieredStorage.coldAfter must be at least 30d (Bigtable's infrequent-access threshold)",
    ),
  ),
});

export type TieredStorageSetting = v.InferOutput<typeof TieredStorageSchema>;

/** What the cross-checks read: the cluster and each design's own node count, storage and factor. */
interface OptionsToCheck {
  cluster: {
    nodes: number;
    storage: "ssd" | "hdd";
    nodeScalingFactor: NodeScalingFactor;
    autoscaling?: AutoscalingSetting | undefined;
    tieredStorage?: TieredStorageSetting | undefined;
  };
  designs: readonly {
    name: string;
    nodes?: number | undefined;
    storage?: "ssd" | "hdd" | undefined;
    nodeScalingFactor?: NodeScalingFactor | undefined;
  }[];
}

/**
 * Cross-checks no field can make on its own: 2× node scaling needs even node counts and SSD;
 * the storage target lies in Google's range for the storage type; tiered storage needs SSD.
 * Throws naming the field and what is allowed.
 */
export function checkClusterOptions(scenario: OptionsToCheck): void {
  const fail = (field: string, kind: string, value: unknown, detail: string): never => {
    throw scenarioProblem({ field, kind, value }, detail);
  };
  const { cluster } = scenario;
  const where = [
    {
      label: "cluster",
      field: "cluster",
      nodes: cluster.nodes,
      storage: cluster.storage,
      factor: cluster.nodeScalingFactor,
    },
    ...scenario.designs.map((design, index) => ({
      label: `design "${design.name}"`,
      field: `designs.${index}`,
      nodes: design.nodes ?? cluster.nodes,
      storage: design.storage ?? cluster.storage,
      factor: design.nodeScalingFactor ?? cluster.nodeScalingFactor,
    })),
  ];
  for (const each of where) {
    if (each.factor !== 2) continue;
    if (each.storage === "hdd")
      fail(
        `${each.field}.nodeScalingFactor`,
        "needs-ssd",
        each.factor,
        `${each.label}: nodeScalingFactor 2 is not available on HDD clusters (Google, "Scaling"); use SSD or nodeScalingFactor 1`,
      );
    if (each.nodes % 2 !== 0)
      fail(
        `${each.field}.nodes`,
        "even-nodes",
        each.nodes,
        `${each.label}: ${each.nodes} nodes under nodeScalingFactor 2; node counts must be even (two standard nodes per compute node)`,
      );
  }
  const autoscaling = cluster.autoscaling;
  if (autoscaling?.storageTargetGiBPerNode !== undefined) {
    const range = STORAGE_TARGET_GIB[cluster.storage];
    const target = autoscaling.storageTargetGiBPerNode;
    if (target < range.min || target > range.max)
      fail(
        "cluster.autoscaling.storageTargetGiBPerNode",
        "range",
        target,
        `cluster.autoscaling.storageTargetGiBPerNode ${target} is outside ${range.min}–${range.max} GiB, Bigtable's range for ${cluster.storage.toUpperCase()} nodes`,
      );
  }
  if (cluster.nodeScalingFactor === 2 && autoscaling) {
    for (const field of ["minNodes", "maxNodes"] as const) {
      const nodes = autoscaling[field];
      if (nodes !== undefined && nodes % 2 !== 0)
        fail(
          `cluster.autoscaling.${field}`,
          "even-nodes",
          nodes,
          `cluster.autoscaling.${field} ${nodes} must be even under nodeScalingFactor 2`,
        );
    }
  }
  if (cluster.tieredStorage) {
    const hdd = where.find((each) => each.storage === "hdd");
    if (hdd)
      fail(
        "cluster.tieredStorage",
        "needs-ssd",
        hdd.storage,
        `${hdd.label}: cluster.tieredStorage needs SSD storage (the infrequent-access tier is for SSD instances only)`,
      );
  }
}

/**
 * The storage target an autoscaler keeps on `storage`, GiB per node: the scenario's (set for the
 * cluster's storage type), else Google's default for `storage` — a design on the other storage type
 * gets that type's default, as its own autoscaler would.
 */
export function storageTargetGiB(
  autoscaling: AutoscalingSetting,
  storage: "ssd" | "hdd",
  clusterStorage: "ssd" | "hdd",
): number {
  const set = storage === clusterStorage ? autoscaling.storageTargetGiBPerNode : undefined;
  return set ?? STORAGE_TARGET_GIB[storage].default;
}

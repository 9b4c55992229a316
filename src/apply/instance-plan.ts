/**
 * The recommended instance as something to apply: its clusters (node count or autoscaling, storage
 * type, node scaling factor), the table with its split keys, the garbage-collection policy that
 * keeps the retention, and an app profile per path (routing and priority, Data Boost for the reads
 * that ask for it). One pure function builds it from the recommendation; terraform.ts and gcloud.ts
 * print it. Every id is checked against Bigtable's rules (bigtable-ids.ts) before anything prints.
 *
 * Sources: Google, "Autoscaling" (https://cloud.google.com/bigtable/docs/autoscaling: CPU target
 * 10–80 %, storage target per node, maximum at most 10× the minimum), "Scaling"
 * (https://cloud.google.com/bigtable/docs/scaling: 2× node scaling in increments of two nodes, not
 * on HDD, chosen when the cluster is created), "App profiles"
 * (https://cloud.google.com/bigtable/docs/app-profiles), "Data Boost overview"
 * (https://cloud.google.com/bigtable/docs/data-boost-overview); the storage-target range per node
 * (2,560–5,120 GiB SSD, 8,192–16,384 GiB HDD) from the Terraform provider's `storage_target` and
 * gcloud's `autoscaling-storage-target` help (docs/apply.md cites both).
 */

import { storagePlan } from "../advise/size/sizing.js";
import { compileSchema } from "../keys/schema.js";
import type { SchemaSpec } from "../keys/types.js";
import { AUTOSCALER_CPU_TARGET } from "../sim/results/summary.js";
import { formatDuration } from "../sim/scenario/duration.js";
import { DEFAULT_PATH, WRITES_PATH } from "../sim/scenario/replication-topology.js";
import { impliedRetention } from "../sim/scenario/retention.js";
import type { ReadPattern, Scenario, ScenarioDesign, Storage } from "../sim/scenario/scenario.js";
import { SALT_BUCKET_SPLITS } from "../sim/scenario/scenario.js";
import { DEFAULT_BIGTABLE_FAMILY } from "../store/bigtable/bigtable.js";
import { bucketSplits } from "../table/splits.js";
import {
  checkAppProfileId,
  checkClusterId,
  checkFamily,
  checkInstanceId,
  checkZone,
  InstancePlanError,
  instanceIdFor,
  tableIdFor,
} from "./bigtable-ids.js";

/** What the plan is built from: the recommendation, in the terms an instance needs (plan-source.ts reads it from the advice). */
export interface PlanSource {
  scenario: Scenario;
  /** The recommended design, and its schema as the real key holds it. */
  design: ScenarioDesign;
  schema: SchemaSpec;
  storage: Storage;
  /** Nodes the recommendation needs by Google's targets at the stated growth (the verdict's figure). */
  nodes: number;
  /** The autoscaler's range over the load's cycle (advise/size/autoscaled-range.ts), when the load has one. */
  autoscaled?: { minNodes: number; maxNodes: number; cpuTarget: number; followsPeak: boolean };
  /** Each cluster of the scenario's replication with the nodes the multi-cluster answer gives it. */
  replicas?: readonly { name: string; region: string; nodes: number }[];
}

export interface InstancePlanOptions {
  /** Default: from the scenario's name (instanceIdFor). */
  instanceId?: string;
  /** The one cluster's zone, or each replica's by cluster name; default us-central1-b, or each region's b, c, d zone. */
  zones?: string | Readonly<Record<string, string>>;
  /** The column family keyspread writes; default the store's (`m`). */
  family?: string;
}

export type NodeScalingFactor = 1 | 2;

export interface PlanAutoscaling {
  minNodes: number;
  maxNodes: number;
  /** Whole percent, 10–80. */
  cpuTargetPercent: number;
  /** GiB per node the autoscaler keeps stored bytes under. */
  storageTargetGiBPerNode: number;
}

export interface PlanCluster {
  id: string;
  zone: string;
  /** The zone was not given: a default the user should check (Bigtable is not in every zone). */
  zoneAssumed: boolean;
  storageType: "SSD" | "HDD";
  nodeScalingFactor: NodeScalingFactor;
  /** Fixed nodes; with autoscaling, the nodes it starts from (its minimum). */
  nodes: number;
  autoscaling?: PlanAutoscaling;
}

export interface PlanTable {
  id: string;
  /** The table exists (the design keeps the current key): describe it, never create or re-split it. */
  exists: boolean;
  /** Initial split keys (the salt's bucket boundaries), ascending. */
  splitKeys: Buffer[];
  family: string;
}

/** The family's GC rule, as the store creates it: one version, and cells older than the retention. */
export interface PlanGcPolicy {
  table: string;
  family: string;
  maxAgeS?: number;
  maxVersions: 1;
}

export type PlanRouting =
  | { kind: "single-cluster"; clusterId: string; transactionalWrites: boolean }
  /** Empty `clusterIds`: every cluster of the instance. */
  | { kind: "multi-cluster"; clusterIds: string[] };

export type PlanIsolation =
  | { kind: "standard"; priority: "PRIORITY_HIGH" | "PRIORITY_MEDIUM" | "PRIORITY_LOW" }
  | { kind: "data-boost" };

export interface PlanAppProfile {
  id: string;
  /** keyspread's paths that use it: `writes` and read patterns by name. */
  paths: string[];
  routing: PlanRouting;
  isolation: PlanIsolation;
}

export interface InstancePlan {
  scenario: string;
  design: string;
  instanceId: string;
  displayName: string;
  clusters: PlanCluster[];
  table: PlanTable;
  gcPolicy: PlanGcPolicy;
  appProfiles: PlanAppProfile[];
  /** What a reviewer must know: assumptions, and what the plan leaves to them. */
  notes: string[];
}

/** Google's storage-target range per node, GiB (see the header). */
export const STORAGE_TARGET_GIB = { ssd: { min: 2560, max: 5120 }, hdd: { min: 8192, max: 16384 } } as const;
/** The autoscaler's maximum may be at most this many times its minimum. */
export const MAX_OVER_MIN_NODES = 10;
const GIB = 2 ** 30;

/**
 * The scenario's autoscaling as this branch reads it: `cpuTarget` today; the storage target and
 * the node range once the scenario declares them (one `cluster.autoscaling` setting).
 */
interface DeclaredAutoscaling {
  cpuTarget?: number;
  storageTargetGiBPerNode?: number;
  minNodes?: number;
  maxNodes?: number;
}
/** `cluster.nodeScalingFactor` once the scenario declares it (default 1). */
interface DeclaredCluster {
  nodes: number;
  nodeScalingFactor?: NodeScalingFactor;
  autoscaling?: DeclaredAutoscaling;
}
/** `reads[].dataBoost` once the scenario declares it: the read runs on Data Boost, not the cluster. */
interface DeclaredRead {
  name: string;
  kind: ReadPattern["kind"];
  dataBoost?: boolean;
}

const even = (nodes: number, factor: NodeScalingFactor) => (factor === 2 ? Math.ceil(nodes / 2) * 2 : nodes);

export function instancePlan(source: PlanSource, options: InstancePlanOptions = {}): InstancePlan {
  const { scenario } = source;
  const instanceId =
    options.instanceId === undefined
      ? instanceIdFor(scenario.name)
      : checkInstanceId("instance id (--instance-id)", options.instanceId);
  const family = checkFamily("family", options.family ?? DEFAULT_BIGTABLE_FAMILY);
  const notes: string[] = [];
  const clusters = planClusters(source, instanceId, options.zones, notes);
  const table = planTable(source, family, notes);
  const retentionS = scenario.workload.retention;
  const implied = impliedRetention(scenario);
  if (retentionS === undefined && implied)
    notes.push(
      `The scenario sets no retention: no GC max-age, so cells stay until deleted (storage was sized for the ${formatDuration(implied.seconds)}${implied.source === "reads" ? ` read ${implied.read} needs` : ""}); set workload.retention to keep fewer.`,
    );
  return {
    scenario: scenario.name,
    design: source.design.name,
    instanceId,
    displayName: instanceId.slice(0, 30),
    clusters,
    table,
    gcPolicy: {
      table: table.id,
      family,
      ...(retentionS === undefined ? {} : { maxAgeS: retentionS }),
      maxVersions: 1,
    },
    appProfiles: planAppProfiles(source, clusters, notes),
    notes,
  };
}

function planClusters(
  source: PlanSource,
  instanceId: string,
  zones: InstancePlanOptions["zones"],
  notes: string[],
): PlanCluster[] {
  const declared: DeclaredCluster = source.scenario.cluster;
  const factor = declared.nodeScalingFactor ?? 1;
  if (factor === 2 && source.storage === "hdd")
    throw new InstancePlanError(
      "cluster.nodeScalingFactor",
      "2× node scaling is not available on HDD clusters (Google, Scaling); use SSD or factor 1",
    );
  if (factor === 2)
    notes.push(
      "2× node scaling is chosen when a cluster is created: an existing cluster cannot switch; node counts are even.",
    );
  const storageType = source.storage === "ssd" ? "SSD" : "HDD";
  const replicas = source.replicas;
  if (replicas === undefined || replicas.length === 0) {
    if (typeof zones === "object")
      throw new InstancePlanError("zone (--zone)", "one cluster: give one zone, e.g. us-central1-b");
    const autoscaling = autoscalingOf(source, source.nodes, factor, notes);
    return [
      {
        id: checkClusterId("cluster id", `${instanceId.slice(0, 27).replace(/-+$/, "")}-c1`),
        zone: zones === undefined ? "us-central1-b" : checkZone("zone (--zone)", zones),
        zoneAssumed: zones === undefined,
        storageType,
        nodeScalingFactor: factor,
        nodes: even(autoscaling?.minNodes ?? fixedNodes(source, notes), factor),
        ...(autoscaling ? { autoscaling } : {}),
      },
    ];
  }
  if (typeof zones === "string")
    throw new InstancePlanError(
      "zone (--zone)",
      `${replicas.length} clusters: give each its zone, e.g. ${replicas.map((each) => `${each.name}=${each.region}-b`).join(",")}`,
    );
  for (const name of Object.keys(zones ?? {}))
    if (!replicas.some((each) => each.name === name))
      throw new InstancePlanError(
        "zone (--zone)",
        `"${name}" is not a cluster; clusters are ${replicas.map((each) => each.name).join(", ")}`,
      );
  const usedZones = new Set(Object.values(zones ?? {}));
  const rangeDeclared =
    declared.autoscaling?.minNodes !== undefined || declared.autoscaling?.maxNodes !== undefined;
  if (!rangeDeclared && source.autoscaled)
    notes.push(
      "Replicated clusters keep the multi-cluster answer's fixed nodes: the autoscaled range is the single-cluster answer's.",
    );
  return replicas.map((replica, index) => {
    const field = `replication.clusters[${index}]`;
    const given = zones?.[replica.name];
    const zone =
      given === undefined
        ? defaultZone(replica.region, usedZones)
        : checkZone(`zone (--zone ${replica.name}=…)`, given);
    usedZones.add(zone);
    const autoscaling = rangeDeclared
      ? autoscalingOf({ ...source, autoscaled: undefined }, replica.nodes, factor, notes)
      : undefined;
    return {
      id: checkClusterId(`${field}.name`, replica.name),
      zone,
      zoneAssumed: given === undefined,
      storageType,
      nodeScalingFactor: factor,
      nodes: even(autoscaling?.minNodes ?? replica.nodes, factor),
      ...(autoscaling ? { autoscaling } : {}),
    };
  });
}

/** The region's b, c or d zone not yet taken (each cluster of an instance needs its own zone). */
function defaultZone(region: string, used: ReadonlySet<string>): string {
  const zone = ["b", "c", "d", "a", "f"]
    .map((letter) => `${region}-${letter}`)
    .find((each) => !used.has(each));
  return checkZone(`zone of region "${region}"`, zone ?? `${region}-b`);
}

/** The verdict's nodes; a peak shorter than the autoscaler's reaction is provisioned for. */
function fixedNodes(source: PlanSource, notes: string[]): number {
  const autoscaled = source.autoscaled;
  if (autoscaled && !autoscaled.followsPeak) {
    notes.push(
      `The load's peak is over before added nodes carry load: ${autoscaled.maxNodes} fixed nodes, provisioned for the peak, not autoscaled.`,
    );
    return Math.max(source.nodes, autoscaled.maxNodes);
  }
  return source.nodes;
}

/**
 * The autoscaler's settings: the scenario's declared range, else the lab's range over the load's
 * cycle; undefined for a fixed cluster. The storage target is the scenario's, else the bytes per
 * node the lab sized storage with, so the autoscaler keeps no fewer nodes than the verdict
 * (Bigtable's default, 2,560 GiB per SSD node, would keep more).
 */
function autoscalingOf(
  source: PlanSource,
  nodes: number,
  factor: NodeScalingFactor,
  notes: string[],
): PlanAutoscaling | undefined {
  const declared: DeclaredAutoscaling | undefined = source.scenario.cluster.autoscaling;
  const range = declaredRange(declared, nodes) ?? cycleRange(source, notes);
  if (range && range.maxNodes < nodes)
    notes.push(
      `The autoscaler's maximum, ${range.maxNodes}, is below the ${nodes} nodes the verdict needs: it cannot reach them.`,
    );
  if (!range) {
    if (declared)
      notes.push(
        "cluster.autoscaling is declared but the load has no cycle to scale over: fixed nodes at the verdict's count (declare minNodes and maxNodes for an autoscaled cluster).",
      );
    return undefined;
  }
  const cpuTarget = declared?.cpuTarget ?? range.cpuTarget;
  const cpuTargetPercent = Math.round(cpuTarget * 100);
  if (cpuTargetPercent < 10 || cpuTargetPercent > 80)
    throw new InstancePlanError(
      "cluster.autoscaling.cpuTarget",
      `${cpuTarget} is outside the autoscaler's 10–80 % (0.1–0.8)`,
    );
  return {
    minNodes: even(range.minNodes, factor),
    maxNodes: even(range.maxNodes, factor),
    cpuTargetPercent,
    storageTargetGiBPerNode: storageTarget(source, declared, notes),
  };
}

function declaredRange(declared: DeclaredAutoscaling | undefined, nodes: number) {
  if (declared?.minNodes === undefined && declared?.maxNodes === undefined) return undefined;
  const minNodes = declared.minNodes ?? nodes;
  const maxNodes = declared.maxNodes ?? Math.max(nodes, minNodes);
  if (maxNodes < minNodes)
    throw new InstancePlanError("cluster.autoscaling.maxNodes", `${maxNodes} is below minNodes ${minNodes}`);
  if (maxNodes > MAX_OVER_MIN_NODES * minNodes)
    throw new InstancePlanError(
      "cluster.autoscaling.maxNodes",
      `${maxNodes} is more than ${MAX_OVER_MIN_NODES}× minNodes ${minNodes}; Bigtable's autoscaler allows at most ${MAX_OVER_MIN_NODES}×`,
    );
  return { minNodes, maxNodes, cpuTarget: AUTOSCALER_CPU_TARGET };
}

function cycleRange(source: PlanSource, notes: string[]) {
  const autoscaled = source.autoscaled;
  if (!autoscaled?.followsPeak) return undefined;
  const floor = Math.ceil(autoscaled.maxNodes / MAX_OVER_MIN_NODES);
  if (autoscaled.minNodes < floor)
    notes.push(
      `The cycle's trough needs ${autoscaled.minNodes} nodes, but the autoscaler's maximum may be at most ${MAX_OVER_MIN_NODES}× its minimum: minimum ${floor}.`,
    );
  return {
    minNodes: Math.max(autoscaled.minNodes, floor),
    maxNodes: autoscaled.maxNodes,
    cpuTarget: autoscaled.cpuTarget,
  };
}

function storageTarget(
  source: PlanSource,
  declared: DeclaredAutoscaling | undefined,
  notes: string[],
): number {
  const { min, max } = STORAGE_TARGET_GIB[source.storage];
  const given = declared?.storageTargetGiBPerNode;
  if (given !== undefined) {
    if (!(Number.isInteger(given) && given >= min && given <= max))
      throw new InstancePlanError(
        "cluster.autoscaling.storageTargetGiBPerNode",
        `${given} is outside ${min}–${max} GiB per ${source.storage.toUpperCase()} node`,
      );
    return given;
  }
  const sized = Math.floor(storagePlan(source.scenario, source.storage).plannedBytesPerNode / GIB);
  const target = Math.min(max, Math.max(min, sized));
  if (target !== sized)
    notes.push(
      `Storage was sized at ${sized} GiB per node, outside the autoscaler's ${min}–${max}: its storage target is ${target}, so it keeps ${target > sized ? "fewer" : "more"} nodes for the bytes than the verdict.`,
    );
  return target;
}

function planTable(source: PlanSource, family: string, notes: string[]): PlanTable {
  const { design, scenario } = source;
  const id = tableIdFor(source.schema.name);
  if (id !== source.schema.name)
    notes.push(
      `The schema's name "${source.schema.name}" is not a Bigtable table id: the table is ${id} (keyspread table create --table ${id}).`,
    );
  const exists = design.table === "existing";
  const splits = design.splits ?? scenario.tablets.splits;
  let splitKeys: Buffer[] = [];
  if (exists) {
    notes.push(
      `Table ${id} exists (the design keeps the current key): pass --instance-id with the instance's id, and import the instance and table before applying; the table's split keys stay as they are.`,
    );
  } else if (splits === SALT_BUCKET_SPLITS) {
    splitKeys = bucketSplits(compileSchema(source.schema));
  } else if (splits > 0) {
    notes.push(
      `The design was simulated on ${splits} split points where its modelled load is equal; those are keys of the model, not of your data: add split keys from a sample of real keys, or let Bigtable split under load.`,
    );
  }
  return { id, exists, splitKeys, family };
}

/**
 * An app profile per path: the scenario's own profiles with replication (each as declared), else
 * one per path on the one cluster. Writes through a single-cluster profile allow transactional
 * writes (keyspread's claims and leases are CheckAndMutateRow); scans run at low priority, the
 * serving paths at high; a read marked for Data Boost gets a read-only Data Boost profile.
 */
function planAppProfiles(source: PlanSource, clusters: PlanCluster[], notes: string[]): PlanAppProfile[] {
  const reads: DeclaredRead[] = source.scenario.workload.reads;
  const boosted = reads.filter((read) => read.dataBoost === true);
  const served = [WRITES_PATH, ...reads.filter((read) => read.dataBoost !== true).map((read) => read.name)];
  const isScan = (path: string) => reads.some((read) => read.name === path && read.kind === "scan");
  const priorityOf = (paths: readonly string[]) =>
    paths.every(isScan) ? ("PRIORITY_LOW" as const) : ("PRIORITY_HIGH" as const);
  const replication = source.scenario.replication;
  const readField = (path: string) => `workload.reads[${reads.findIndex((read) => read.name === path)}].name`;
  const standard: PlanAppProfile[] = replication
    ? replication.appProfiles.flatMap((profile, index) => {
        const paths = served.filter(
          (path) => (replication.paths[path] ?? replication.paths[DEFAULT_PATH]) === profile.name,
        );
        if (paths.length === 0) return [];
        const id = checkAppProfileId(`replication.appProfiles[${index}].name`, profile.name);
        const routing: PlanRouting =
          profile.routing === "single-cluster"
            ? {
                kind: "single-cluster",
                clusterId: profile.cluster,
                transactionalWrites: paths.includes(WRITES_PATH),
              }
            : { kind: "multi-cluster", clusterIds: profile.clusters ?? [] };
        return [{ id, paths, routing, isolation: { kind: "standard", priority: priorityOf(paths) } }];
      })
    : served.map((path) => ({
        id: checkAppProfileId(path === WRITES_PATH ? "writes path" : readField(path), path),
        paths: [path],
        routing: {
          kind: "single-cluster",
          clusterId: clusters[0]!.id,
          transactionalWrites: path === WRITES_PATH,
        },
        isolation: { kind: "standard", priority: priorityOf([path]) },
      }));
  if (
    standard.some(
      (profile) => profile.routing.kind === "multi-cluster" && profile.paths.includes(WRITES_PATH),
    )
  )
    notes.push(
      "The writes use multi-cluster routing, which allows no transactional writes: keyspread's claims and leases (CheckAndMutateRow) need a single-cluster profile.",
    );
  const boost: PlanAppProfile[] = boosted.map((read) => ({
    id: checkAppProfileId(readField(read.name), `${read.name}-data-boost`),
    paths: [read.name],
    routing: {
      kind: "single-cluster",
      clusterId: boostCluster(source, read.name, clusters),
      transactionalWrites: false,
    },
    isolation: { kind: "data-boost" },
  }));
  if (boost.length > 0)
    notes.push(
      "Data Boost reads run on serverless compute billed to this project (HOST_PAYS), may miss the last ~35 minutes of writes, and need an Enterprise edition instance.",
    );
  return [...standard, ...boost];
}

/** The cluster a Data Boost read names: its path's single cluster, else the instance's first. */
function boostCluster(source: PlanSource, path: string, clusters: readonly PlanCluster[]): string {
  const replication = source.scenario.replication;
  const name = replication ? (replication.paths[path] ?? replication.paths[DEFAULT_PATH]) : undefined;
  const profile = replication?.appProfiles.find((each) => each.name === name);
  return profile?.routing === "single-cluster" ? profile.cluster : clusters[0]!.id;
}
